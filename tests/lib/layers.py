"""The house rules of toolkit/, derived from the tree itself.

usage: python3 tests/lib/layers.py [TOOLKIT_DIR [USER_DIR...]]
       python3 tests/lib/layers.py --figures [TOOLKIT_DIR]

Reads TOOLKIT_DIR/LAYERS (the layers, lowest first, and where some
calls may stand) and every .c, .h and .inc file below TOOLKIT_DIR, and
the C files below each USER_DIR (the programs that call toolkit/ from
outside: by default tests/unit, tests/tool, tests/fuzz and bench beside
TOOLKIT_DIR), then prints one line per broken rule and exits 1, or
prints nothing and exits 0. The rules:

- every file is in a folder, and every folder is on exactly one layer;
- an #include "..." names a file that exists: first beside the including
  file, then from TOOLKIT_DIR (the only include path the build gives);
- a file includes headers of its own folder, or the door of a folder on
  a lower layer (FOLDER/FOLDER.h), never anything else;
- no circle of includes between modules (x.c and x.h are module x; a
  door's includes of its own folder's headers only list what the folder
  shows, so they are not counted), nor between folders;
- a .c file sees at most MAX_HEADERS project headers, counted through
  every include it reaches (`--figures` prints what each file sees);
- a header includes another folder's door only where it uses a name
  the door declares by value (uses() below: a struct or union embedded
  or passed whole, an enum, a macro, a typedef, an enum constant); a
  struct it names only behind '*' it declares itself (`struct tf_buf;`);
- a `library` line of LAYERS limits which files may include a
  library's headers (`library yaml.h: recipe/recipe_internal.h`; a
  name ending in '/' is a folder of headers);
- a `calls` line of LAYERS limits where a name may be called:
  `calls die: cli/` lets only files under cli/ call die(), and
  `calls archive_read*: ...` names a prefix;
- a function named *_check prints nothing: it fills a reason and its
  caller reports (the failure convention in base/log.h);
- no circle of calls between files of different folders, nor one
  through a folder's door inside the folder (below);
- every exported function (defined without `static` in a .c file and
  declared in a header) is called from another file: a function only
  its own file calls is static, one nothing calls is removed;
- a door FOLDER/FOLDER.h opens, after its include guard, with one
  comment whose first line is " * FOLDER/: " and what the folder owns,
  and no second comment follows it before the code (two pasted
  openings read as two doors);
- no .c or .h file has more than MAX_LINES lines;
- no function has more than MAX_FUNCTION_LINES lines, counted as ctags
  counts them: from the first line of its definition (the return type)
  to its closing brace, both included, blank and comment lines too. A
  definition is found as clang-format writes it (BreakBeforeBraces:
  Linux): a line that is just "{" opens a function's body, the next
  line that is just "}" closes it, and the lines above the "{" back to
  the one that starts in column 0 are its head.

The calls are read from the source, so that the rules hold on any copy
of the tree without building it: file A calls file B when A's code
(comments and strings blanked) names a function B.c defines without
`static`, and A does not define that name itself. A name is any
identifier, so a function taken by its address (`.fn = cmd_add`)
counts as called. A macro or a static inline function of a header
stands for the names in its body, so `BUG()` calls base/log.c's
tf_bug(). Functions that a macro defines (dl/'s forwarders of the
libraries' own names) are not seen; `nm` on the objects agrees with
this graph otherwise (checked when the rule was written).

The circles: files call each other freely inside a folder, but
- no circle of calls may join files of two folders: a folder is a
  layer's unit, and its files' calls leave it only downwards;
- FOLDER/FOLDER.c, the file behind the door FOLDER/FOLDER.h where the
  folder has one, stands above the rest of its folder: it calls the
  folder's other files and none calls back into it, directly or around
  a circle inside the folder. (verify/defect.c exists for that: every
  check reports through it, not through verify.c.)
"""

import collections
import os
import re
import sys

MAX_LINES = 1000
MAX_FUNCTION_LINES = 80
FUNCTION_NAME = re.compile(r'(\w+)\s*\(')
IDENT = re.compile(r'\b[A-Za-z_]\w*\b')
DEFINE = re.compile(r'^[ \t]*#[ \t]*define[ \t]+(\w+)((?:.*\\\n)*.*)$', re.M)
USER_DIRS = ('tests/unit', 'tests/tool', 'tests/fuzz', 'bench')
CHECK_FN = re.compile(r'^[A-Za-z_][\w \t\*]*?\b(\w+_check)\s*\(([^;{}]*)\)\s*\{', re.M)
PRINTS = re.compile(r'(?<![\w.>])(error|error_errno|error_at|tf_error_at|warning|info|'
                    r'verbose|printf|fprintf|puts|fputs|perror)\s*\(')
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
SYSTEM_INCLUDE = re.compile(r'^\s*#\s*include\s+<([^>]+)>', re.M)


def strip_comments(text):
    """Text with C comments and string literals blanked, lines kept."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith('/*', i):
            j = text.find('*/', i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r'[^\n]', ' ', text[i:j]))
            i = j
        elif text.startswith('//', i):
            j = text.find('\n', i)
            j = n if j < 0 else j
            out.append(' ' * (j - i))
            i = j
        elif c in '"\'':
            j = i + 1
            while j < n and text[j] != c and text[j] != '\n':
                j += 2 if text[j] == '\\' else 1
            out.append(c + ' ' * (min(j, n) - i - 1) + (c if j < n else ''))
            i = j + 1
        else:
            out.append(c)
            i += 1
    return ''.join(out)


def functions(code):
    """[(name, static, first line, brace line, last line)] of the function
    definitions in code (comments blanked), lines counted from 1."""
    lines, found, i = code.split('\n'), [], 0
    while i < len(lines):
        if lines[i] != '{':
            i += 1
            continue
        head = i - 1
        while head > 0 and (lines[head] == '' or lines[head][0] in ' \t'):
            head -= 1
        end = i + 1
        while end < len(lines) and lines[end] != '}':
            end += 1
        m = FUNCTION_NAME.search(' '.join(lines[head:i]))
        if m:
            found.append((m.group(1), lines[head].startswith('static'),
                          head + 1, i + 1, end + 1))
        i = end + 1
    return found


def expansions(codes, defs):
    """{name: {identifier}} for the macros and static inline functions
    of the headers: what a use of the name stands for."""
    out = {}
    for rel, code in codes.items():
        if not rel.endswith('.h'):
            continue
        lines = code.split('\n')
        for name, _, _, brace, last in defs[rel]:
            out.setdefault(name, set()).update(
                IDENT.findall('\n'.join(lines[brace:last - 1])))
        for m in DEFINE.finditer(code):
            out.setdefault(m.group(1), set()).update(IDENT.findall(m.group(2)))
    return out


def names_used(code, expand):
    """{name: line of its first use} for every identifier in code, and
    for what its macros stand for (at the macro's line)."""
    seen = {}
    for m in IDENT.finditer(code):
        if m.group(0) in seen:
            continue
        line = code.count('\n', 0, m.start()) + 1
        todo = [m.group(0)]
        while todo:
            name = todo.pop()
            if name not in seen:
                seen[name] = line
                todo.extend(expand.get(name, ()))
    return seen


def shortest_path(edges, start, goal, within):
    """The files from start to goal along edges, staying within."""
    back, todo = {start: None}, collections.deque([start])
    while todo:
        n = todo.popleft()
        if n == goal:
            path = []
            while n is not None:
                path.append(n)
                n = back[n]
            return path[::-1]
        for m in sorted(edges.get(n, ())):
            if m in within and m not in back:
                back[m] = n
                todo.append(m)
    return None


def show_circle(edges, first, then, within):
    """'a.c:3 calls f() in b.c, b.c:9 calls g() in a.c' for the circle
    that starts with the call first -> then."""
    path = [first] + shortest_path(edges, then, first, within)
    return ', '.join(f'{a}:{edges[a][b][0]} calls {edges[a][b][1]}() in {b}'
                     for a, b in zip(path, path[1:]))


def call_rules(codes, defs, users):
    """The problems of the call graph: circles, and exported functions
    no other file calls. codes: {rel: comment-blanked code} of toolkit/;
    defs: {rel: functions(code)}; users: [comment-blanked code] of the
    programs outside toolkit/."""
    problems, defined, where = [], {}, {}
    for rel in sorted(codes):
        if rel.endswith('.c'):
            for name, static, first, _, _ in defs[rel]:
                if not static and name not in defined:
                    defined[name], where[name] = rel, first
    expand = expansions(codes, defs)
    edges, callers = {}, {}
    for rel in sorted(codes):
        if rel.endswith('.h'):
            continue
        own = {d[0] for d in defs[rel]}
        for name, line in names_used(codes[rel], expand).items():
            callers.setdefault(name, set()).add(rel)
            target = defined.get(name)
            if target and target != rel and name not in own:
                edges.setdefault(rel, {}).setdefault(target, (line, name))
    for code in users:
        for name in names_used(code, expand):
            callers.setdefault(name, set()).add(None)

    def folder(rel):
        return rel.split('/')[0]

    for part in circles(edges):
        part = set(part)
        cross = sorted((a, b) for a in part for b in edges.get(a, ())
                       if b in part and folder(a) != folder(b))
        if cross:
            problems.append('a circle of calls between folders: ' +
                            show_circle(edges, *cross[0], part))
    inside = {a: {b: e for b, e in bs.items() if folder(b) == folder(a)}
              for a, bs in edges.items()}
    for part in circles(inside):
        door = f'{folder(part[0])}/{folder(part[0])}.c'
        if door in part:
            then = sorted(b for b in inside[door] if b in part)[0]
            problems.append(f'a circle of calls through the door of '
                            f'{folder(door)}/: ' +
                            show_circle(inside, door, then, set(part)))

    declared = {}
    for rel in sorted(codes):
        if rel.endswith('.h'):
            for name in IDENT.findall(codes[rel]):
                declared.setdefault(name, rel)
    for name, rel in sorted(defined.items(), key=lambda d: (d[1], where[d[0]])):
        if name not in declared or callers.get(name, set()) - {rel}:
            continue
        uses = len(re.findall(r'\b' + name + r'\b', codes[rel]))
        problems.append(f'{rel}:{where[name]}: {name}() is declared in '
                        f'{declared[name]} but ' +
                        (f'only {rel} calls it: make it static' if uses > 1
                         else 'nothing calls it: remove it'))
    return problems


# The headers a .c file may see, counted through every #include "..."
# it reaches (its own folder's headers, doors and what they include).
# Measured when doors were slimmed (docs/architecture.md, "What a file
# sees"): before, the median .c saw 18 headers (1,465 lines) and the
# most, pack/pack.c, 66; after, the median is 18 (1,435 lines: base/'s
# door alone is 12) and the most, pack/pack.c again, 57. The bound
# leaves a little headroom above that most; the old tree broke it twice.
MAX_HEADERS = 60
TAG_USE = re.compile(r'\b(struct|union|enum)\s+(\w+)')
C_WORDS = frozenset(
    'auto break case char const continue default do double else enum extern '
    'float for goto if inline int long register restrict return short signed '
    'sizeof static struct switch typedef union unsigned void volatile while '
    '_Bool _Static_assert _Noreturn bool defined'.split())


def top_level(code):
    """[(statement, is a function definition)] of code at brace depth 0,
    preprocessor lines blanked and the bodies of structs, enums and
    functions left out: `int f(void);` is one statement, a struct
    definition's head and tail another."""
    code = re.sub(r'^[ \t]*#(?:.*\\\n)*.*$', '', code, flags=re.M)
    out, start, i, n, text = [], 0, 0, len(code), []
    while i < n:
        c = code[i]
        if c == '{':
            depth, j = 1, i + 1
            while j < n and depth:
                depth += {'{': 1, '}': -1}.get(code[j], 0)
                j += 1
            head = ''.join(text) + code[start:i]
            if head.rstrip().endswith(')'):
                out.append((head, True))
                text = []
            else:
                text.append(code[start:i] + ' ')
            start = i = j
        elif c == ';':
            out.append((''.join(text) + code[start:i], False))
            text, start, i = [], i + 1, i + 1
        else:
            i += 1
    return out


def enumerators(code):
    """The constants of every enum body in code."""
    out = set()
    code = re.sub(r'^[ \t]*#(?:.*\\\n)*.*$', '', code, flags=re.M)
    for m in re.finditer(r'\benum\b\s*\w*\s*\{([^}]*)\}', code):
        for item in m.group(1).split(','):
            name = IDENT.search(item)
            if name:
                out.add(name.group(0))
    return out


def declared(code):
    """The names a header's code (comments blanked) declares: its
    macros, enum constants, typedefs, functions and extern variables,
    and 'struct N' for each struct, union or enum N it defines (tags and
    ordinary names are two namespaces, so a parameter named like a tag
    is no use of the tag)."""
    names = {m.group(1) for m in DEFINE.finditer(code)}
    macros = set(names)
    names |= enumerators(code)
    names |= {'struct ' + m.group(2) for m in
              re.finditer(r'\b(struct|union|enum)\s+(\w+)\s*\{', code)}
    for stmt, _ in top_level(code):
        stmt = stmt.strip()
        if stmt.startswith('typedef'):
            m = (re.search(r'\(\s*\*\s*(\w+)\s*\)', stmt) or
                 re.search(r'(\w+)\s*\(', stmt) or
                 re.search(r'(\w+)\s*(?:\[[^\]]*\]\s*)*$', stmt))
            if m:
                names.add(m.group(1))
            continue
        called = [m.group(1) for m in re.finditer(r'(\w+)\s*\(', stmt)
                  if m.group(1) not in macros and not m.group(1).startswith('__')
                  and m.group(1) not in C_WORDS]
        if called:
            names.add(called[0])
        elif stmt.startswith('extern'):
            m = re.search(r'(\w+)\s*(?:\[[^\]]*\]\s*)*(?:=.*)?$', stmt, re.S)
            if m:
                names.add(m.group(1))
    return names


def in_function(code, pos):
    """Is pos inside the body of a function that code defines?"""
    depth, i = 0, pos
    while i > 0:
        i -= 1
        if code[i] == '}':
            depth += 1
        elif code[i] == '{':
            if depth == 0:
                return code[:i].rstrip().endswith(')')
            depth -= 1
    return False


def uses(code):
    """(by value, behind a pointer only): the names code (comments
    blanked) uses. A tag 'struct N' is used behind a pointer where each
    mention of it is followed (past const and volatile) by '*', or is a
    bare declaration `struct N;`; any other mention of a struct or
    union, any mention of an enum (C has no incomplete enums), a mention
    inside a function body, and every ordinary identifier (a macro, a
    typedef, an enum constant, a function) is a use by value."""
    value, pointer = set(), set()
    for m in TAG_USE.finditer(code):
        tag = 'struct ' + m.group(2)
        rest = re.match(r'(?:\s|\bconst\b|\bvolatile\b)*(.)', code[m.end():], re.S)
        nxt = rest.group(1) if rest else ''
        if m.group(1) == 'enum' or nxt not in '*;{' or in_function(code, m.start()):
            value.add(tag)
        elif nxt == '*':
            pointer.add(tag)
    value |= set(IDENT.findall(TAG_USE.sub(' ', code))) - C_WORDS
    return value, pointer - value

def includes_of(top, rel, text):
    """[(line, target)] of the project files rel's #include "..." names,
    found as the compiler finds them: beside rel, then from top."""
    out = []
    for m in INCLUDE.finditer(text):
        name = m.group(1)
        beside = os.path.normpath(os.path.join(os.path.dirname(rel), name))
        for target in (beside, os.path.normpath(name)):
            if os.path.exists(os.path.join(top, target)):
                out.append((text.count('\n', 0, m.start(1)) + 1, target))
                break
    return out


def seen_headers(includes):
    """{file: set of the headers it sees, through every include it
    reaches} from includes: {file: [(line, target)]}."""
    seen = {}
    for rel in includes:
        found, todo = set(), [t for _, t in includes[rel]]
        while todo:
            h = todo.pop()
            if h not in found and h.endswith('.h'):
                found.add(h)
                todo.extend(t for _, t in includes.get(h, ()))
        seen[rel] = found
    return seen


def figures(top):
    """The numbers behind MAX_HEADERS, for docs/architecture.md."""
    texts, includes = {}, {}
    for d, dirs, names in os.walk(top):
        dirs.sort()
        for name in sorted(names):
            if name.endswith(('.c', '.h', '.inc')):
                rel = os.path.relpath(os.path.join(d, name), top)
                with open(os.path.join(top, rel), errors='replace') as f:
                    texts[rel] = f.read()
                includes[rel] = includes_of(top, rel, texts[rel])
    lines = {rel: t.count('\n') for rel, t in texts.items()}
    seen = seen_headers(includes)
    cs = sorted(r for r in texts if r.endswith('.c'))
    hs = sorted(r for r in texts if r.endswith('.h'))
    counts = sorted((len(seen[c]), sum(lines[h] for h in seen[c]), c) for c in cs)
    by_lines = sorted(counts, key=lambda c: c[1])
    total = sum(lines[h] for h in hs)
    print(f'{len(cs)} .c files, {len(hs)} headers of {total} lines')
    print(f'a .c sees: median {counts[len(cs) // 2][0]} headers, '
          f'{by_lines[len(cs) // 2][1]} lines; most {counts[-1][0]} headers '
          f'({counts[-1][2]}), {by_lines[-1][1]} lines ({by_lines[-1][2]})')
    print(f'{sum(1 for h in hs if any(t.endswith(".h") for _, t in includes[h]))} '
          f'of {len(hs)} headers include project headers')
    for d in sorted({r.split('/')[0] for r in hs}):
        door = f'{d}/{d}.h'
        if door in seen:
            print(f'{door} brings in {len(seen[door])} headers, '
                  f'{sum(lines[h] for h in seen[door])} lines, reaching '
                  f'{sum(1 for c in cs if door in seen[c])} .c files')

def folder_provides(door, decl, includes):
    """The names declared by a door and by the headers of its folder it
    reaches, through includes inside the folder."""
    folder, found, todo, names = door.split('/')[0], set(), [door], set()
    while todo:
        h = todo.pop()
        if h in found or h not in decl:
            continue
        found.add(h)
        names |= decl[h]
        todo.extend(t for _, t in includes.get(h, ()) if t.split('/')[0] == folder)
    return names


def header_rules(codes, includes):
    """The problems of what headers include and what a .c file sees:
    codes: {rel: comment-blanked code}; includes: {rel: [(line, target)]}.

    - a .c file sees at most MAX_HEADERS project headers, counted
      through every include it reaches;
    - a header includes another folder's door only if it uses one of the
      names that door declares (itself or through the headers of its
      folder it includes) by value, as uses() defines it: a struct or
      union embedded or passed whole, any enum, a macro, a typedef, an
      enum constant. A struct named only behind '*' is declared
      (`struct tf_buf;`) instead."""
    problems, seen = [], seen_headers(includes)
    for rel in sorted(codes):
        if rel.endswith('.c') and len(seen[rel]) > MAX_HEADERS:
            problems.append(f'{rel}: sees {len(seen[rel])} project headers, over '
                            f'{MAX_HEADERS}: include only the doors it calls')
    decl = {rel: declared(code) for rel, code in codes.items() if rel.endswith('.h')}
    for rel in sorted(decl):
        value, pointer = uses(codes[rel])
        value -= decl[rel]
        for line, target in includes.get(rel, ()):
            folder = target.split('/')[0]
            if folder == rel.split('/')[0] or target != f'{folder}/{folder}.h':
                continue
            names = folder_provides(target, decl, includes)
            if value & names:
                continue
            tags = sorted(pointer & names)
            if tags:
                problems.append(f'{rel}:{line}: includes "{target}" only for '
                                f'{", ".join(tags)} behind a pointer: declare '
                                f'{" ".join(t + ";" for t in tags)} instead')
            else:
                problems.append(f'{rel}:{line}: includes "{target}" and uses '
                                f'nothing it declares')
    return problems

def door_opening(rel, text):
    """The problem of the door rel's opening comment, or None."""
    folder = rel.split('/')[0]
    lines = text.split('\n')
    i = 0
    while i < len(lines) and (not lines[i].strip() or
                              re.match(r'#\s*(ifndef|define)\b', lines[i])):
        i += 1
    if (i + 1 >= len(lines) or lines[i] != '/*'
            or not lines[i + 1].startswith(f' * {folder}/: ')):
        return (f'{rel}:{i + 1}: the door opens with a comment starting '
                f'" * {folder}/: " and what the folder owns')
    while i < len(lines) and not lines[i].rstrip().endswith('*/'):
        i += 1
    i += 1
    while i < len(lines) and not lines[i].strip():
        i += 1
    if i < len(lines) and lines[i].lstrip().startswith(('/*', '//')):
        return (f'{rel}:{i + 1}: a second opening comment: one says what '
                f'{folder}/ owns')
    return None


def read_user_code(dirs):
    """The comment-blanked text of every .c and .h file below dirs."""
    out = []
    for top in dirs:
        for d, subdirs, names in os.walk(top):
            subdirs.sort()
            for name in sorted(names):
                if name.endswith(('.c', '.h')):
                    with open(os.path.join(d, name), errors='replace') as f:
                        out.append(strip_comments(f.read()))
    return out


def read_layers(path):
    """([[folder, ...] per layer, lowest first], [(names, [where])],
    [(headers, [where])])."""
    layers, calls, libraries = [], [], []
    with open(path) as f:
        for no, line in enumerate(f, 1):
            line = line.split('#', 1)[0].strip()
            if not line:
                continue
            word, _, rest = line.partition(' ')
            if word == 'layer':
                layers.append(rest.split())
            elif word in ('calls', 'library'):
                names, _, where = rest.partition(':')
                (calls if word == 'calls' else libraries).append(
                    (names.split(), where.split()))
            else:
                sys.exit(f'{path}:{no}: expected "layer", "calls" or "library", '
                         f'not {word!r}')
    return layers, calls, libraries


def allowed(rel, where):
    """Is the file rel one of where (files, or folders ending in '/')?"""
    return any(rel.startswith(w) if w.endswith('/') else rel == w for w in where)


def circles(edges):
    """The strongly connected parts of {node: {node}} with more than one
    node, each as a sorted list: every circle lies within one of them."""
    index, low, on, stack, found = {}, {}, set(), [], []

    def visit(n):
        index[n] = low[n] = len(index)
        stack.append(n)
        on.add(n)
        for m in sorted(edges.get(n, ())):
            if m not in index:
                visit(m)
                low[n] = min(low[n], low[m])
            elif m in on:
                low[n] = min(low[n], index[m])
        if low[n] == index[n]:
            part = []
            while True:
                m = stack.pop()
                on.discard(m)
                part.append(m)
                if m == n:
                    break
            if len(part) > 1:
                found.append(sorted(part))

    for n in sorted(edges):
        if n not in index:
            visit(n)
    return found


def main(top, user_dirs):
    problems, codes, defs = [], {}, {}
    layers, calls, libraries = read_layers(os.path.join(top, 'LAYERS'))
    layer_of = {}
    for i, folders in enumerate(layers):
        for d in folders:
            if d in layer_of:
                problems.append(f'LAYERS: folder {d}/ is on two layers')
            layer_of[d] = i
    files = []
    for d, dirs, names in os.walk(top):
        dirs.sort()
        for name in sorted(names):
            if name.endswith(('.c', '.h', '.inc')):
                files.append(os.path.relpath(os.path.join(d, name), top))
    for d in sorted(layer_of):
        if not os.path.isdir(os.path.join(top, d)):
            problems.append(f'LAYERS: folder {d}/ does not exist')

    module_edges, folder_edges, includes = {}, {}, {}
    for rel in files:
        folder = rel.split('/')[0] if '/' in rel else None
        if folder is None:
            problems.append(f'{rel}: not in a folder')
            continue
        if folder not in layer_of:
            problems.append(f'{rel}: folder {folder}/ is on no layer in LAYERS')
            continue
        with open(os.path.join(top, rel), errors='replace') as f:
            text = f.read()
        if rel.endswith(('.c', '.h')) and text.count('\n') > MAX_LINES:
            problems.append(f'{rel}: {text.count(chr(10))} lines, over {MAX_LINES}')
        module = os.path.splitext(rel)[0]
        includes[rel] = includes_of(top, rel, text)
        if rel == f'{folder}/{folder}.h':
            problem = door_opening(rel, text)
            if problem:
                problems.append(problem)
        for m in INCLUDE.finditer(text):
            line = text.count('\n', 0, m.start()) + 1
            name = m.group(1)
            beside = os.path.normpath(os.path.join(os.path.dirname(rel), name))
            if os.path.exists(os.path.join(top, beside)):
                target = beside
            elif os.path.exists(os.path.join(top, name)):
                target = os.path.normpath(name)
            else:
                problems.append(f'{rel}:{line}: includes "{name}", which is not there')
                continue
            tfolder = target.split('/')[0]
            # A door's includes of its own folder list what the folder
            # shows; they are no module's dependency.
            is_door = rel == f'{folder}/{folder}.h'
            if (target.endswith('.h') and os.path.splitext(target)[0] != module
                    and not (is_door and target.split('/')[0] == folder)):
                module_edges.setdefault(module, set()).add(os.path.splitext(target)[0])
            if tfolder == folder:
                continue
            folder_edges.setdefault(folder, set()).add(tfolder)
            door = f'{tfolder}/{tfolder}.h'
            if target != door:
                problems.append(f'{rel}:{line}: includes "{name}" inside {tfolder}/; '
                                f'only its door "{door}" may be included from outside')
            if tfolder not in layer_of:
                continue
            if layer_of[tfolder] == layer_of[folder]:
                problems.append(f'{rel}:{line}: includes "{name}": {folder}/ and '
                                f'{tfolder}/ are on the same layer')
            elif layer_of[tfolder] > layer_of[folder]:
                problems.append(f'{rel}:{line}: includes "{name}": an arrow up, '
                                f'from {folder}/ (layer {layer_of[folder] + 1}) '
                                f'to {tfolder}/ (layer {layer_of[tfolder] + 1})')
        for m in SYSTEM_INCLUDE.finditer(text):
            header = m.group(1)
            for headers, where in libraries:
                if not any(header == h or (h.endswith('/') and header.startswith(h))
                           for h in headers):
                    continue
                if not allowed(rel, where):
                    line = text.count('\n', 0, m.start()) + 1
                    problems.append(f'{rel}:{line}: includes <{header}>, which only '
                                    f'{" ".join(where)} may include')
        code = codes[rel] = strip_comments(text)
        defs[rel] = functions(code)
        for name, _, first, _, last in defs[rel]:
            if last - first + 1 > MAX_FUNCTION_LINES:
                problems.append(f'{rel}:{first}: {name}() has {last - first + 1} '
                                f'lines, over {MAX_FUNCTION_LINES}')
        if rel.endswith('.c'):
            for f in CHECK_FN.finditer(code):
                i, depth = f.end(), 1
                while depth and i < len(code):
                    depth += {'{': 1, '}': -1}.get(code[i], 0)
                    i += 1
                p = PRINTS.search(code, f.end(), i)
                if p:
                    line = code.count('\n', 0, p.start()) + 1
                    problems.append(f'{rel}:{line}: {f.group(1)}() calls {p.group(1)}(): '
                                    f'a *_check function fills a reason and never prints')
        for names, where in calls:
            if allowed(rel, where):
                continue
            for name in names:
                pattern = re.escape(name.rstrip('*')) + (r'\w*' if name.endswith('*') else '')
                for c in re.finditer(r'(?<![\w.>])' + pattern + r'\s*\(', code):
                    line = code.count('\n', 0, c.start()) + 1
                    called = c.group(0).rstrip('( \t\n')
                    problems.append(f'{rel}:{line}: calls {called}(), which only '
                                    f'{" ".join(where)} may call')

    for edges, what in ((module_edges, 'modules'), (folder_edges, 'folders')):
        for part in circles(edges):
            problems.append(f'a circle of includes between {what}: ' + ', '.join(part))
    problems += header_rules(codes, includes)
    problems += call_rules(codes, defs, read_user_code(user_dirs))
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == '__main__':
    if sys.argv[1:2] == ['--figures']:
        sys.exit(figures(sys.argv[2] if len(sys.argv) > 2 else 'toolkit'))
    top = sys.argv[1] if len(sys.argv) > 1 else 'toolkit'
    sys.exit(main(top, sys.argv[2:] or [
        d for d in (os.path.join(top, '..', u) for u in USER_DIRS)
        if os.path.isdir(d)]))
