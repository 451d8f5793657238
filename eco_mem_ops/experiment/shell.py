"""Which files a shell command reads, lists or searches, from its text alone.

Agents read files through the shell (`cat`, `sed -n`, `head`), search with grep or rg,
and list with ls or find. A best-effort reading of the command line is enough here: a
token only counts once it resolves to a memory file, so words that are not paths cost
nothing. Globs stay unexpanded; the scorer expands them in the clone.
"""

from __future__ import annotations

import fnmatch
import os
import shlex
from collections import namedtuple

# kind: "read" (path is a file the command reads), "search" (every markdown file under
# path is read; hidden: including those in hidden folders), "list" (names seen, not read).
Access = namedtuple("Access", "kind path cwd hidden")

SHELLS = ("bash", "sh", "zsh", "dash", "ksh")
READERS = {
    *("cat", "head", "tail", "less", "more", "bat", "batcat", "nl", "tac", "view", "vim", "vi"),
    *("nano", "emacs", "sed", "awk", "gawk", "cut", "sort", "uniq", "wc", "diff", "cmp"),
    *("strings", "od", "xxd", "hexdump", "cp", "jq", "yq", "md5sum", "sha256sum", "open"),
}
SEARCHERS = {"grep", "egrep", "fgrep", "rg", "ag", "ack", "git-grep"}
LISTERS = {"ls", "tree", "find", "fd", "exa", "eza", "stat", "du"}
WRAPPERS = {"sudo", "command", "time", "nice", "nohup", "env", "builtin", "exec"}
KEYWORDS = {"do", "then", "else", "elif", "if", "while", "until", "!", "{"}  # `do cat x`
SEPARATORS = {";", "&&", "||", "|", "&", "(", ")", "|&", ";;"}
# Search options whose value is the next token.
VALUE_OPTIONS = {
    *("-e", "-f", "-m", "-A", "-B", "-C", "-g", "-t", "-T", "-d", "-M", "-j", "-E", "-G"),
    *("--regexp", "--file", "--glob", "--iglob", "--type", "--type-not", "--include"),
    *("--exclude", "--max-count", "--max-depth", "--context", "--ignore-dir", "--exclude-dir"),
}
MARKDOWN_NAMES = ("INDEX.md", "entry.md")


def inner_script(command) -> str:
    """The shell text of a command given as a string or an argv list (`bash -lc "..."`)."""
    if isinstance(command, str):
        return command
    argv = [str(part) for part in command]
    if (
        len(argv) >= 3
        and os.path.basename(argv[0]) in SHELLS
        and argv[1].startswith("-")
        and "c" in argv[1]
    ):
        return argv[2]
    return " ".join(shlex.quote(part) for part in argv)


def _tokens(script: str) -> list[str]:
    lexer = shlex.shlex(script.replace("\n", " ; "), posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    try:
        return list(lexer)
    except ValueError:  # unbalanced quotes: fall back to plain words
        return script.split()


def _pipelines(tokens: list[str]):
    """Yield pipelines (lists of simple commands) split at ; && || & and parentheses."""
    pipeline, command = [], []
    for token in tokens:
        if token in ("|", "|&"):
            pipeline.append(command)
            command = []
        elif token in SEPARATORS:
            pipeline.append(command)
            yield [part for part in pipeline if part]
            pipeline, command = [], []
        else:
            command.append(token)
    pipeline.append(command)
    yield [part for part in pipeline if part]


def accesses(script: str, cwd: str | None) -> list[Access]:
    found: list[Access] = []
    for pipeline in _pipelines(_tokens(script)):
        feeds_reader = any(_program(command)[0] in READERS | SEARCHERS for command in pipeline[1:])
        for command in pipeline:
            program, args = _program(command)
            args, redirected = _redirections(args)
            found.extend(Access("read", path, cwd, True) for path in redirected)
            if program == "cd":
                cwd = _cd(cwd, args)
            elif program in SEARCHERS:
                found.extend(_search(program, args, cwd))
            elif program == "find":
                found.extend(_find(args, cwd, feeds_reader))
            elif program in LISTERS:
                paths = [arg for arg in args if not arg.startswith("-")] or ["."]
                found.extend(Access("list", path, cwd, True) for path in paths)
            elif program in READERS:
                found.extend(
                    Access("read", arg, cwd, True) for arg in args if not arg.startswith("-")
                )
    return found


def _is_assignment(word: str) -> bool:
    name = word.split("=", 1)[0]
    return "=" in word and name.replace("_", "").isalnum()


def _program(command: list[str]) -> tuple[str, list[str]]:
    """The program a simple command runs, past `VAR=x`, sudo, env and xargs."""
    index = 0
    while index < len(command) and (
        _is_assignment(command[index])
        or command[index] in WRAPPERS | KEYWORDS
        or command[index] == "xargs"
    ):
        index += 1
        if command[index - 1] == "xargs":  # xargs options come before its program
            while index < len(command) and command[index].startswith("-"):
                index += 1
    if index >= len(command):
        return "", []
    program, args = os.path.basename(command[index]), command[index + 1 :]
    if program == "git" and args[:1] == ["grep"]:
        return "git-grep", args[1:]
    return program, args


def _redirections(args: list[str]) -> tuple[list[str], list[str]]:
    """(arguments without redirections, files read through `<`)."""
    kept, read, skip = [], [], None
    for arg in args:
        if skip:
            if skip == "<":
                read.append(arg)
            skip = None
        elif arg in ("<", ">", ">>", ">|", "<<", "<<<", "<>", ">&", "<&"):
            skip = arg
        else:
            kept.append(arg)
    # `2>file` splits into "2" and ">": the stray descriptor number is harmless.
    return kept, read


def _cd(cwd: str | None, args: list[str]) -> str | None:
    target = next((arg for arg in args if not arg.startswith("-")), "~")
    target = os.path.expanduser(target)
    if os.path.isabs(target) or cwd is None:
        return os.path.normpath(target) if os.path.isabs(target) else target
    return os.path.normpath(os.path.join(cwd, target))


def _search(program: str, args: list[str], cwd: str | None) -> list[Access]:
    recursive = program != "grep" and program not in ("egrep", "fgrep")
    hidden = program in ("grep", "egrep", "fgrep", "git-grep", "ack")
    pattern_given, includes, types, positional = False, [], [], []
    index = 0
    while index < len(args):
        arg = args[index]
        name, _, inline = arg.partition("=") if arg.startswith("--") else (arg, "", "")
        value = inline
        if arg.startswith("--") and name in VALUE_OPTIONS and not inline:
            index += 1
            value = args[index] if index < len(args) else ""
        elif not arg.startswith("--") and arg in VALUE_OPTIONS:
            index += 1
            value = args[index] if index < len(args) else ""
            name = arg
        index += 1
        if name in ("-e", "-f", "--regexp", "--file"):
            pattern_given = True
        elif name in ("-g", "--glob", "--iglob", "--include"):
            includes.append(value)
        elif name == "--exclude":
            includes.append("!" + value)
        elif name in ("-t", "--type"):
            types.append(value)
        elif name in ("-T", "--type-not") and value in ("md", "markdown"):
            return []
        elif name in ("--recursive", "--dereference-recursive") or (
            name == "-d" and value == "recurse"
        ):
            recursive = True
        elif name in ("--hidden", "-.", "--unrestricted") or name.startswith("-uu"):
            hidden = True
        elif name.startswith("-") and not name.startswith("--") and len(name) > 1:
            recursive = recursive or "r" in name[1:] or "R" in name[1:]
            hidden = hidden or (program == "ag" and "u" in name[1:])
        elif not name.startswith("-") or name == "-":
            positional.append(arg)
    paths = positional if pattern_given else positional[1:]
    if not paths:
        paths = ["."] if recursive else []
    if not _covers_markdown(includes, types):
        return []  # `rg -g '*.py'` never opens a memory file
    kind = "search" if recursive else "read"
    return [Access(kind, path, cwd, hidden) for path in paths]


def _covers_markdown(includes: list[str], types: list[str]) -> bool:
    if types and not any(kind in ("md", "markdown") for kind in types):
        return False
    wanted = [glob for glob in includes if not glob.startswith("!")]
    excluded = [glob[1:] for glob in includes if glob.startswith("!")]
    for name in MARKDOWN_NAMES:
        if any(fnmatch.fnmatch(name, glob) for glob in excluded):
            return False
    return not wanted or any(
        fnmatch.fnmatch(name, glob) for glob in wanted for name in MARKDOWN_NAMES
    )


def _find(args: list[str], cwd: str | None, feeds_reader: bool) -> list[Access]:
    roots = []
    for arg in args:
        if arg.startswith(("-", "(", "!")):
            break
        roots.append(arg)
    roots = roots or ["."]
    reads = feeds_reader or any(
        arg in ("-exec", "-execdir")
        and index + 1 < len(args)
        and os.path.basename(args[index + 1]) in READERS | SEARCHERS
        for index, arg in enumerate(args)
    )
    return [Access("search" if reads else "list", root, cwd, True) for root in roots]
