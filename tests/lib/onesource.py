#!/usr/bin/env python3
"""One source for the reference backend: backend/ and templates/ checked.

    python3 tests/lib/onesource.py [--root DIR] [--suggest]

backend/ (the m1 reference backend) and templates/ (what `tfbuild new`
writes) hold the same code in many places, by hand. tests/lib/onesource.map
says, for every pair of files that share code, which units (a C or C++
top-level definition by its name; in other files a paragraph, by its
first code line) are the same code and which each side keeps its own,
and why. This checks, with the map's renames (m1_error is plugin_error,
pjrt_m1 is {{module}}, ...) applied and comments and white space folded:

  - every `same` unit is in both files and equal: a fix made on one side
    alone fails here until it reaches the other (or the map says why not);
  - every unit both files name is `same` or `own`: a new shared unit is
    classified;
  - every run of MIN_RUN or more equal code lines between any file of
    backend/ and any of templates/ (or between two templates) lies in a
    pair the map declares: an undeclared copy fails.

--suggest prints the pairs' units as the map would classify them now.
Exits 0 when all holds, 1 naming each FILE:LINE that does not.
"""
import os
import re
import sys

MIN_RUN = 6
CODE = ('.c', '.h', '.cpp', '.cc', '.py', '.sh', '.txt', 'Makefile',
        '.build')


def read(root, rel):
    with open(os.path.join(root, rel), encoding='utf-8') as f:
        return f.read().split('\n')


def is_c(rel):
    return rel.endswith(('.c', '.h', '.cpp', '.cc'))


def strip_comments(rel, lines):
    """The lines with comments blanked, line numbers kept."""
    out, text = [], '\n'.join(lines)
    if is_c(rel):
        text = re.sub(r'/\*.*?\*/',
                      lambda m: '\n' * m.group(0).count('\n'), text,
                      flags=re.S)
        text = re.sub(r'//[^\n]*', '', text)
        return text.split('\n')
    for line in lines:
        s = line.strip()
        if s.startswith('#') and not s.startswith('#!'):
            line = ''
        out.append(line)
    return out


def fold(s):
    return re.sub(r'\s+', ' ', s).strip()


def c_units(lines):
    """Top-level C definitions: name -> (first line, last line), 1-based."""
    units, i = {}, 0
    while i < len(lines):
        line = lines[i]
        if not line or line[0].isspace() or line[0] in '}#':
            i += 1
            continue
        j = i
        while j < len(lines) and not (
                lines[j].startswith('}') or (j == i and line.endswith(';'))):
            j += 1
        head = '\n'.join(lines[i:j + 1]).split('{')[0]
        m = re.search(r'(\w+)\s*\(', head)
        if not m or head.lstrip().startswith(('struct', 'static const',
                                              'const', 'enum', 'union')):
            m = re.search(r'(\w+)\s*(=|\[|;|$)', head.strip()) or \
                re.search(r'(\w+)', head)
        base = m.group(1) if m else 'line%d' % (i + 1)
        name, k = base, 2
        while name in units:
            name = '%s#%d' % (base, k)
            k += 1
        units[name] = (i + 1, j + 1)
        i = j + 1
    return units


def para_units(lines):
    """Paragraphs of code lines, named by the first one."""
    units, i = {}, 0
    while i < len(lines):
        if not lines[i].strip():
            i += 1
            continue
        j = i
        while j + 1 < len(lines) and lines[j + 1].strip():
            j += 1
        name = re.sub(r'\s+', '', lines[i])[:40]
        units.setdefault(name, (i + 1, j + 1))
        i = j + 1
    return units


class Side:
    def __init__(self, root, rel, renames):
        self.rel = rel
        self.raw = read(root, rel)
        code = strip_comments(rel, self.raw)
        self.code = [apply(renames, x) for x in code]
        self.units = (c_units if is_c(rel) else para_units)(self.code)

    def text(self, name):
        a, b = self.units[name]
        return fold(' '.join(self.code[a - 1:b]))


def apply(renames, s):
    for pat, rep in renames:
        s = re.sub(pat, rep, s)
    return s


def parse_map(path):
    renames, pairs, cur, errors = {}, [], None, []
    with open(path, encoding='utf-8') as f:
        for n, line in enumerate(f, 1):
            s = line.strip()
            if not s or s.startswith('#'):
                continue
            w = s.split()
            if w[0] == 'rename' and len(w) >= 2:
                renames.setdefault(w[1], []).extend(
                    tuple(x.split('=', 1)) for x in w[2:])
            elif w[0] == 'pair' and len(w) in (3, 4):
                cur = {'a': w[1], 'b': w[2], 'family': w[3]
                       if len(w) == 4 else None, 'same': {}, 'own': {},
                       'whole': False, 'line': n}
                pairs.append(cur)
            elif w[0] == 'shape' and len(w) == 3:
                pairs.append({'a': w[1], 'b': w[2], 'shape': True,
                              'line': n})
            elif w[0] in ('same', 'own') and cur and len(w) >= 2:
                for name in w[1:]:
                    cur[w[0]][name] = n
            elif w[0] == 'whole' and cur and len(w) == 1:
                cur['whole'] = True
            else:
                errors.append('%s:%d: cannot read: %s' % (path, n, s))
    return renames, pairs, errors


def check_pair(root, mapfile, renames, p, errors, suggest):
    rn = renames.get(p['family'], []) if p['family'] else []
    a, b = Side(root, p['a'], rn), Side(root, p['b'], rn)
    if p['whole']:
        if a.raw != b.raw:
            errors.append('%s: differs from %s: the map says whole '
                          '(byte for byte)' % (p['a'], p['b']))
        return
    both = [x for x in a.units if x in b.units]
    if suggest:
        print('pair %s %s %s' % (p['a'], p['b'], p['family'] or ''))
        for x in both:
            print('  %s %s' % ('same' if a.text(x) == b.text(x)
                               else 'own', x))
        return
    for name, n in p['same'].items():
        if name not in a.units or name not in b.units:
            errors.append('%s:%d: same %s: not in %s' % (
                mapfile, n, name,
                p['a'] if name not in a.units else p['b']))
        elif a.text(name) != b.text(name):
            errors.append(
                '%s:%d: %s differs from %s:%d: the map says `same %s`; '
                'make the fix on both sides, or move it to `own` with why'
                % (p['a'], a.units[name][0], name, p['b'], b.units[name][0],
                   name))
    for name in both:
        if name not in p['same'] and name not in p['own']:
            errors.append('%s:%d: %s is also in %s:%d: the map says '
                          'neither `same` nor `own` for it (%s:%d)' % (
                              p['a'], a.units[name][0], name, p['b'],
                              b.units[name][0], mapfile, p['line']))


def code_files(root, top):
    out = []
    for d, dirs, files in os.walk(os.path.join(root, top)):
        dirs.sort()
        for f in sorted(files):
            if f.endswith(CODE) or f == 'Makefile':
                out.append(os.path.relpath(os.path.join(d, f), root))
    return out


def runs(lines):
    """Set of MIN_RUN-line windows of non-trivial code lines."""
    code = [fold(x) for x in lines]
    code = [x for x in code if re.search(r'\w', x)]
    return {tuple(code[i:i + MIN_RUN])
            for i in range(len(code) - MIN_RUN + 1)}


def check_copies(root, renames, pairs, errors):
    declared = {frozenset((p['a'], p['b'])) for p in pairs}
    allrn = [r for v in renames.values() for r in v]
    back, tmpl = code_files(root, 'backend'), code_files(root, 'templates')
    win = {}
    for rel in back + tmpl:
        win[rel] = runs(apply(allrn, x)
                        for x in strip_comments(rel, read(root, rel)))
    for i, x in enumerate(back + tmpl):
        for y in tmpl:
            if (x in back or x < y) and x != y and \
                    frozenset((x, y)) not in declared and win[x] & win[y]:
                errors.append('%s and %s share %d or more lines, and '
                              'tests/lib/onesource.map declares no pair '
                              'for them' % (x, y, MIN_RUN))


def main(argv):
    root = '.'
    if '--root' in argv:
        root = argv[argv.index('--root') + 1]
    suggest = '--suggest' in argv
    mapfile = 'tests/lib/onesource.map'
    renames, pairs, errors = parse_map(os.path.join(root, mapfile))
    for p in pairs:
        for rel in (p['a'], p['b']):
            if not os.path.isfile(os.path.join(root, rel)):
                errors.append('%s:%d: no file %s' % (mapfile, p['line'],
                                                      rel))
    if errors:
        print('\n'.join('onesource: ' + e for e in errors))
        return 1
    for p in pairs:
        if not p.get('shape'):
            check_pair(root, mapfile, renames, p, errors, suggest)
    if not suggest:
        check_copies(root, renames, pairs, errors)
    for e in errors:
        print('onesource: ' + e)
    return 1 if errors else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
