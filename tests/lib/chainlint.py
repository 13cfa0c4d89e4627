"""The &&-chain check of the e2e tests, in the manner of git's t/chainlint.pl.

usage: python3 tests/lib/chainlint.py SCRIPT...

Reads each test script, finds every `expect_success DESCRIPTION BODY`
in it (at the top level, in loops and in functions alike), parses BODY
as POSIX shell and prints, for every body whose &&-chain is broken, one
line "not ok - broken &&-chain in 'DESCRIPTION' (SCRIPT:LINE)" and the
body with each break marked ?!AMP?!. Exits 1 if it printed any, 2 if a
script cannot be read or parsed, 0 otherwise. tests/lib/test-lib.sh
runs it on the script that sources it, before the first test.

A body is a list of commands; the list fails only if its last command
does, so every command but the last must hand its failure on. Checked
in every list of the body: its top level, { } groups, ( ) subshells,
if/while/until/for conditions and bodies, case arms, functions and
$( ) substitutions. A command (an and-or list: `a && b || c`) followed
by a newline, `;` or `&` is not a break when

- it ends the chain itself: `cmd || exit 1`, `|| return 1`, or an
  alternative group that ends in exit or return, `|| { ...; exit 1; }`;
- it cannot fail: assignments without a command substitution (`i=0`,
  `rc=$?`, `n=$((n + 1))`, `eval p$i=$!`), `:`, `true`, a loop, group,
  if or case whose every last command cannot fail, an alternative that
  cannot fail (`wait $p || rc=$?`), or one command `|| :` (`a && b || :`
  drops the whole chain: a break);
- the next command reads `$?` (`cmd; test $? = 3 && ...`), or is a bare
  `exit` or `return`, which exits with it;
- a later command of the same list is `false`, `exit N` or `return N`
  with N not 0: the list fails anyway;
- it is one command followed by `;` (`kill $pid; wait $pid`): a `;` is
  typed on purpose, to drop that command's status; after a chain
  (`a && script ...;`) it drops the whole chain: a break;
- it is one command started in the background (`server &`): its status
  is only known to `wait`. A chain started in the background
  (`a && b &`) is a break: the failures of a and b are never seen.

Everything else is a break: `a && b` NEWLINE `c`, `cmd` NEWLINE `c`, or
`a && b; c` runs c whatever came before, and the test passes on c
alone. Here-document bodies, quoted strings, backslash-newline
continuations, $(( )) and ${ } are read as the shell reads them and not
checked. Not checked either: that a loop's body exits on failure, as a
failure in any pass but the last is otherwise lost (git's LOOP rule).
"""

import sys

OPERATORS = ('&&', '||', ';;', '<<-', '<<', '>>', '<&', '>&', '<>', '>|',
             ';', '&', '|', '(', ')', '<', '>')
REDIRECTIONS = ('<<-', '<<', '>>', '<&', '>&', '<>', '>|', '<', '>')
META = ' \t\n;&|<>()'


class ParseError(Exception):
    """A script or body this parser cannot read, with its line."""


class Token:
    """One word, operator, newline or end of input, with its position."""

    def __init__(self, kind, text, start, end, line):
        self.kind, self.text = kind, text
        self.start, self.end, self.line = start, end, line
        self.subs = []  # the parsed $( ) substitutions of a word

    def word(self, *texts):
        """Is this an unquoted word spelt as one of texts?"""
        return self.kind == 'word' and self.text in texts

    def op(self, *texts):
        return self.kind == 'op' and self.text in texts


class Lexer:
    """Tokens of POSIX shell text, here-document bodies skipped."""

    def __init__(self, text):
        self.s, self.i, self.line = text, 0, 1
        self.heredocs = []  # (tag, strip tabs) read at the next newline

    def error(self, what):
        raise ParseError(f'line {self.line}: {what}')

    def peekc(self, k=0):
        j = self.i + k
        return self.s[j] if j < len(self.s) else ''

    def next(self):
        """The next token; a comment is skipped up to its newline."""
        while True:
            c = self.peekc()
            if c in (' ', '\t'):
                self.i += 1
            elif c == '\\' and self.peekc(1) == '\n':
                self.i += 2
                self.line += 1
            elif c == '#':
                while self.peekc() not in ('\n', ''):
                    self.i += 1
            else:
                break
        start, line = self.i, self.line
        c = self.peekc()
        if c == '':
            if self.heredocs:
                self.error(f'here-document {self.heredocs[0][0]!r} not closed')
            return Token('eof', '', start, start, line)
        if c == '\n':
            self.i += 1
            self.line += 1
            self.read_heredocs()
            return Token('nl', '\n', start, start + 1, line)
        for op in OPERATORS:
            if self.s.startswith(op, self.i):
                self.i += len(op)
                if op in ('<<', '<<-'):
                    self.heredoc_tag(op == '<<-')
                return Token('op', op, start, self.i, line)
        tok = Token('word', '', start, start, line)
        self.read_word(tok)
        tok.end = self.i
        tok.text = self.s[start:self.i]
        if tok.text.isdigit() and self.peekc() in ('<', '>'):
            tok.kind = 'io'  # 2>err: the 2 is the redirection's
        return tok

    def heredoc_tag(self, strip):
        """Note the tag after << for the next newline to read up to."""
        while self.peekc() in (' ', '\t'):
            self.i += 1
        tok = Token('word', '', self.i, self.i, self.line)
        start = self.i
        self.read_word(tok)
        if self.i == start:
            self.error('<< without a here-document tag')
        tag = self.s[start:self.i]
        for q in '\'"\\':
            tag = tag.replace(q, '')
        self.heredocs.append((tag, strip))

    def read_heredocs(self):
        """Skip the bodies of the here-documents begun on the line just read."""
        while self.heredocs:
            tag, strip = self.heredocs.pop(0)
            while True:
                if self.i >= len(self.s):
                    self.error(f'here-document {tag!r} not closed')
                j = self.s.find('\n', self.i)
                end = len(self.s) if j < 0 else j
                text = self.s[self.i:end]
                self.i = end + 1 if j >= 0 else end
                self.line += 1
                if (text.lstrip('\t') if strip else text) == tag:
                    break

    def read_word(self, tok):
        """Read one word into the lexer position; parse its $( )s into tok."""
        while True:
            c = self.peekc()
            if c == '' or c in META:
                return
            if c == '\\':
                if self.peekc(1) == '\n':
                    self.line += 1
                self.i += 2
            elif c == "'":
                self.read_single()
            elif c == '"':
                self.read_double(tok)
            elif c == '`':
                self.read_backquote()
            elif c == '$':
                self.read_dollar(tok)
            else:
                self.i += 1

    def advance_to(self, j):
        self.line += self.s.count('\n', self.i, j)
        self.i = j

    def read_single(self):
        j = self.s.find("'", self.i + 1)
        if j < 0:
            self.error('unterminated single quote')
        self.advance_to(j + 1)

    def read_double(self, tok):
        self.i += 1
        while True:
            c = self.peekc()
            if c == '':
                self.error('unterminated double quote')
            if c == '"':
                self.i += 1
                return
            if c == '\\':
                self.advance_to(self.i + 2)
            elif c == '$':
                self.read_dollar(tok)
            elif c == '`':
                self.read_backquote()
            else:
                self.advance_to(self.i + 1)

    def read_backquote(self):
        j = self.i + 1
        while j < len(self.s) and self.s[j] != '`':
            j += 2 if self.s[j] == '\\' else 1
        if j >= len(self.s):
            self.error('unterminated backquote')
        self.advance_to(j + 1)

    def read_balanced(self, open_, close):
        """Skip $(( )) or ${ } up to the close that balances its open."""
        depth, j = 0, self.i
        while j < len(self.s):
            c = self.s[j]
            if c == '\\':
                j += 2
                continue
            if c == "'" and open_ == '{':
                k = self.s.find("'", j + 1)
                j = len(self.s) if k < 0 else k + 1
                continue
            if c == open_:
                depth += 1
            elif c == close:
                depth -= 1
                if depth == 0:
                    self.advance_to(j + 1)
                    return
            j += 1
        self.error(f'unbalanced {open_}')

    def read_dollar(self, tok):
        if self.s.startswith('$((', self.i):
            self.i += 1
            self.read_balanced('(', ')')
        elif self.s.startswith('$(', self.i):
            self.i += 2
            sub = Parser(self)
            tok.subs.append(sub.parse_list(('op', ')')))
            sub.expect_op(')')
        elif self.s.startswith('${', self.i):
            self.i += 1
            self.read_balanced('{', '}')
        else:
            self.i += 1


class Parser:
    """A recursive descent parser of POSIX shell (section 2.10)."""

    def __init__(self, lexer):
        self.lex = lexer
        self.ahead = []
        self.last = None  # the token taken last

    def peek(self):
        if not self.ahead:
            self.ahead.append(self.lex.next())
        return self.ahead[-1]

    def take(self):
        tok = self.ahead.pop() if self.ahead else self.lex.next()
        self.last = tok
        return tok

    def newlines(self):
        while self.peek().kind == 'nl':
            self.take()

    def expect_op(self, text):
        tok = self.take()
        if not tok.op(text):
            self.lex.error(f'expected {text!r}, found {tok.text!r}')
        return tok

    def expect_word(self, text):
        tok = self.take()
        if not tok.word(text):
            self.lex.error(f'expected {text!r}, found {tok.text!r}')
        return tok

    @staticmethod
    def stops_at(tok, stops):
        """Does tok, in command position, end a list that stops at stops?"""
        if tok.kind == 'eof':
            return True
        for kind, text in stops:
            if tok.kind == kind and tok.text == text:
                return True
        return False

    def parse_list(self, *stops):
        """A list of and-or lists up to one of stops:
        [(andor, separator token or None, last token of andor)]."""
        items = []
        while True:
            self.newlines()
            if self.stops_at(self.peek(), stops):
                return items
            andor = self.parse_andor()
            end = self.last
            tok = self.peek()
            if tok.op(';', '&') or tok.kind == 'nl':
                sep = self.take()
            else:
                sep = None
            items.append((andor, sep, end))
            if sep is None:
                if not self.stops_at(self.peek(), stops):
                    self.lex.error(f'unexpected {self.peek().text!r}')
                return items

    def parse_andor(self):
        """[pipeline, op, pipeline, ...] with op '&&' or '||'."""
        parts = [self.parse_pipeline()]
        while self.peek().op('&&', '||'):
            parts.append(self.take().text)
            self.newlines()
            parts.append(self.parse_pipeline())
        return parts

    def parse_pipeline(self):
        """('pipeline', bang, [command, ...])."""
        bang = False
        if self.peek().word('!'):
            self.take()
            bang = True
        cmds = [self.parse_command()]
        while self.peek().op('|'):
            self.take()
            self.newlines()
            cmds.append(self.parse_command())
        return ('pipeline', bang, cmds)

    def redirections(self):
        while self.peek().op(*REDIRECTIONS) or self.peek().kind == 'io':
            if self.peek().kind == 'io':
                self.take()
            if self.take().text in ('<<', '<<-'):
                continue  # the lexer took the tag
            if self.take().kind != 'word':
                self.lex.error('a redirection without a file')

    def parse_command(self):
        """One command: ('simple', [word]), ('func', name, command) or
        ('compound', keyword, [list, ...])."""
        tok = self.peek()
        if tok.word('{'):
            self.take()
            lists = [self.parse_list(('word', '}'))]
            self.expect_word('}')
        elif tok.op('('):
            self.take()
            lists = [self.parse_list(('op', ')'))]
            self.expect_op(')')
        elif tok.word('if'):
            lists = self.parse_if()
        elif tok.word('while', 'until'):
            self.take()
            lists = [self.parse_list(('word', 'do'))]
            self.expect_word('do')
            lists.append(self.parse_list(('word', 'done')))
            self.expect_word('done')
        elif tok.word('for'):
            lists = self.parse_for()
        elif tok.word('case'):
            lists = self.parse_case()
        else:
            return self.parse_simple()
        self.redirections()
        return ('compound', tok.text, lists)

    def parse_if(self):
        lists = []
        while True:
            self.take()  # if or elif
            lists.append(self.parse_list(('word', 'then')))
            self.expect_word('then')
            lists.append(self.parse_list(('word', 'elif'), ('word', 'else'),
                                         ('word', 'fi')))
            if not self.peek().word('elif'):
                break
        if self.peek().word('else'):
            self.take()
            lists.append(self.parse_list(('word', 'fi')))
        self.expect_word('fi')
        return lists

    def parse_for(self):
        self.take()
        if self.take().kind != 'word':
            self.lex.error('for without a name')
        self.newlines()
        if self.peek().word('in'):
            self.take()
            while self.peek().kind == 'word':
                self.take()
            if not (self.peek().op(';') or self.peek().kind == 'nl'):
                self.lex.error('for ... in without ; or newline')
            self.take()
        elif self.peek().op(';'):
            self.take()
        self.newlines()
        self.expect_word('do')
        body = self.parse_list(('word', 'done'))
        self.expect_word('done')
        return [body]

    def parse_case(self):
        self.take()
        if self.take().kind != 'word':
            self.lex.error('case without a word')
        self.newlines()
        self.expect_word('in')
        lists = []
        while True:
            self.newlines()
            if self.peek().word('esac'):
                break
            if self.peek().op('('):
                self.take()
            while not self.peek().op(')'):
                if self.take().kind not in ('word', 'op'):
                    self.lex.error('unterminated case pattern')
            self.take()
            lists.append(self.parse_list(('op', ';;'), ('word', 'esac')))
            if self.peek().op(';;'):
                self.take()
        self.expect_word('esac')
        return lists

    def parse_simple(self):
        words, redirected = [], False
        while True:
            tok = self.peek()
            if tok.kind == 'word':
                words.append(self.take())
            elif tok.op(*REDIRECTIONS) or tok.kind == 'io':
                self.redirections()
                redirected = True
            elif tok.op('(') and len(words) == 1:
                self.take()
                self.expect_op(')')
                self.newlines()
                return ('func', words[0], self.parse_command())
            else:
                break
        if not words and not redirected:
            self.lex.error(f'expected a command, found {tok.text!r}')
        return ('simple', words)


# What a command is, for the chain rules.

def words_of(pipeline):
    """The words of pipeline if it is one simple command, else None."""
    kind, bang, cmds = pipeline
    if bang or len(cmds) != 1 or cmds[0][0] != 'simple':
        return None
    return [w.text for w in cmds[0][1]]


def is_exit(words):
    return bool(words) and words[0] in ('exit', 'return')


def is_assignment(word, expanded_name=False):
    """NAME=VALUE without $( ) or ` in VALUE; with expanded_name, NAME
    may hold $ expansions too (`eval p$i=$!`)."""
    name, eq, value = word.partition('=')
    allowed = '_$' if expanded_name else '_'
    return bool(eq and name and (name[0].isalpha() or name[0] == '_')
                and all(c.isalnum() or c in allowed for c in name)
                and '`' not in value
                and '$(' not in value.replace('$((', ''))


def ends_in_exit(items):
    """Does this list (a { } group) end in exit or return?"""
    return bool(items) and len(items[-1][0]) == 1 and is_exit(
        words_of(items[-1][0][0]))


def fails_fast(andor):
    """`... || exit N`, `... || return N` or `... || { ...; exit N; }`."""
    if len(andor) < 3 or andor[-2] != '||':
        return False
    if is_exit(words_of(andor[-1])):
        return True
    kind, bang, cmds = andor[-1]
    return (not bang and len(cmds) == 1 and cmds[0][0] == 'compound'
            and cmds[0][1] == '{' and ends_in_exit(cmds[0][2][0]))


def command_cannot_fail(cmd):
    """Is the status of cmd always 0 (or never seen, as after continue)?"""
    if cmd[0] == 'func':
        return True
    if cmd[0] == 'simple':
        words = [w.text for w in cmd[1]]
        if not words:
            return False  # `>file` fails if the file cannot be made
        return (words[0] in (':', 'true', 'continue', 'break')
                or all(map(is_assignment, words))
                or (words[0] == 'eval' and len(words) > 1 and all(
                    is_assignment(w, True) for w in words[1:])))
    keyword, lists = cmd[1], cmd[2]
    if keyword in ('{', '(', 'for', 'case'):
        ends = lists
    elif keyword in ('while', 'until'):
        ends = lists[1:]  # the condition ends the loop, it does not fail it
    else:  # if: each branch's body; with no else, 0 when none runs
        ends = lists[1::2] + (lists[-1:] if len(lists) % 2 else [])
    return all(list_cannot_fail(items) for items in ends)


def list_cannot_fail(items):
    """Is the status of this list always 0? An empty one's is."""
    if not items:
        return True
    andor, sep, _ = items[-1]
    return (sep is not None and sep.text == '&') or cannot_fail(andor)


def pipeline_cannot_fail(pipeline):
    """A pipeline's status is its last command's."""
    kind, bang, cmds = pipeline
    return not bang and command_cannot_fail(cmds[-1])


def cannot_fail(andor):
    """Is the status of andor always 0: only commands that cannot fail,
    or an alternative that cannot fail (`wait $p || rc=$?`, `cmd || :`)?"""
    if len(andor) >= 3 and andor[-2] == '||':
        if words_of(andor[-1]) in ([':'], ['true']) and len(andor) > 3:
            return False  # `a && b || :` drops the whole chain
        return pipeline_cannot_fail(andor[-1])
    return all(pipeline_cannot_fail(p) for p in andor[::2])


def reads_status(andor):
    """Does the first command of andor use $?, or exit with it?"""
    kind, bang, cmds = andor[0]
    cmd = cmds[0]
    words = [w.text for w in cmd[1]] if cmd[0] == 'simple' else []
    return any('$?' in w for w in words) or words in (['exit'], ['return'])


def always_fails(andor):
    """`false`, or `exit N` / `return N` with N a number not 0."""
    words = words_of(andor[0]) if len(andor) == 1 else None
    if not words:
        return False
    return words == ['false'] or (len(words) == 2 and is_exit(words)
                                  and words[1].isdigit() and int(words[1]) != 0)


def check_list(items, breaks):
    """Append to breaks the token ending each broken link of items, and
    check every list inside them."""
    for andor, _, _ in items:
        check_andor(andor, breaks)
    for k, (andor, sep, end) in enumerate(items):
        if sep is not None and sep.text == '&':
            if len(andor) > 1:
                breaks.append(sep)
            continue
        if k == len(items) - 1:
            continue
        if fails_fast(andor) or cannot_fail(andor):
            continue
        if reads_status(items[k + 1][0]):
            continue
        if any(always_fails(a) for a, _, _ in items[k + 1:]):
            continue
        if len(andor) == 1 and sep.text == ';':
            continue  # `cmd; next`: written to drop cmd's status alone
        breaks.append(end)


def check_andor(andor, breaks):
    for part in andor[::2]:
        for cmd in part[2]:
            check_command(cmd, breaks)


def check_command(cmd, breaks):
    if cmd[0] == 'simple':
        for word in cmd[1]:
            for sub in word.subs:
                check_list(sub, breaks)
    elif cmd[0] == 'func':
        check_command(cmd[2], breaks)
    else:
        for items in cmd[2]:
            check_list(items, breaks)


# Finding the tests in a script.

def unquote(text):
    """The value of a shell word as written, quotes removed, $ left alone."""
    out, i, q = [], 0, None
    while i < len(text):
        c = text[i]
        if q == "'":
            if c == "'":
                q = None
            else:
                out.append(c)
        elif c == '\\' and i + 1 < len(text):
            nxt = text[i + 1]
            if nxt == '\n':
                pass
            elif q == '"' and nxt not in '$`"\\':
                out.append(c + nxt)
            else:
                out.append(nxt)
            i += 1
        elif c == q:
            q = None
        elif q is None and c in '\'"':
            q = c
        else:
            out.append(c)
        i += 1
    return ''.join(out)


def find_tests(items, found):
    """Append (description token, body token) of each expect_success."""
    for andor, _, _ in items:
        for part in andor[::2]:
            for cmd in part[2]:
                find_in_command(cmd, found)


def find_in_command(cmd, found):
    if cmd[0] == 'simple':
        words = cmd[1]
        if len(words) >= 3 and words[0].text == 'expect_success':
            found.append((words[1], words[2]))
    elif cmd[0] == 'func':
        find_in_command(cmd[2], found)
    else:
        for items in cmd[2]:
            find_tests(items, found)


def body_line(body_tok, body, pos):
    """The script line of offset pos in the unquoted body."""
    return body_tok.line + body.count('\n', 0, pos)


def annotate(body, breaks):
    """The body with ?!AMP?! after each break, one string."""
    out, at = [], 0
    for end in sorted(set(t.end for t in breaks)):
        out.append(body[at:end] + ' ?!AMP?!')
        at = end
    out.append(body[at:])
    return ''.join(out)


def check_test(path, desc_tok, body_tok, out):
    """Print the verdict on one test; return 1 if its chain is broken."""
    desc, body = unquote(desc_tok.text), unquote(body_tok.text)
    name = path.rsplit('/', 1)[-1]
    try:
        items = Parser(Lexer(body)).parse_list()
    except ParseError as e:
        out.append(f"not ok - chainlint cannot read the body of '{desc}' "
                   f'({name}:{body_tok.line}): {e}')
        return 1
    breaks = []
    check_list(items, breaks)
    if not breaks:
        return 0
    first = body_line(body_tok, body, min(t.start for t in breaks))
    out.append(f"not ok - broken &&-chain in '{desc}' ({name}:{first})")
    lines = annotate(body, breaks).split('\n')
    no = body_tok.line
    for text in lines:
        if text.strip():
            out.append(f'#   {no}: {text}')
        no += 1
    return 1


def check_script(path, out):
    """Check every test of the script at path: the number found broken."""
    with open(path) as f:
        text = f.read()
    tests = []
    find_tests(Parser(Lexer(text)).parse_list(), tests)
    return sum(check_test(path, d, b, out) for d, b in tests)


def main(paths):
    if not paths:
        print(__doc__.split('\n\n')[1], file=sys.stderr)
        return 2
    broken, status = 0, 0
    for path in paths:
        out = []
        try:
            broken += check_script(path, out)
        except (OSError, ParseError) as e:
            print(f'chainlint: {path}: {e}', file=sys.stderr)
            status = 2
        for line in out:
            print(line)
    return status or (1 if broken else 0)


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
