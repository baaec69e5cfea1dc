#!/usr/bin/python3
"""debian_deps.py: does scripts/install-deps.sh install every Debian package that
the build, the tests and the demo really use?

CI runs on a machine where packages may have been installed by hand, so a green
build there proves nothing about a fresh Debian 12 machine. This check works out
what is used from the build itself and from what the tests and the demo run:

  headers      every compile dependency file of the build (*.o.d, compiler_depend.make)
  libraries    every link line (link.txt: absolute paths and -lNAME) and `ldd` of
               every ELF file the build made
  tools        what CMake found (CMakeCache.txt: compilers, make, find_program,
               find_library), and cmake/ctest themselves
  tests        every CTest command (`ctest --show-only=json-v1`): its program, the
               files it names, and the scripts it runs, followed to the scripts
               they run in turn (shell: the words in command position; Python:
               imports resolved by /usr/bin/python3, subprocess programs);
               the test sources' string literals (absolute paths, shell commands
               handed to system()/popen())
  demo         scripts/demo.sh and every kernels/<kind>/demo_extras.sh it sources, followed the same way

Each file is mapped to its package with `dpkg -S` (through symlinks and Debian's
merged /usr). A package passes when it is listed by `install-deps.sh --list`, is
pulled in by a listed package (the closure of Depends and Pre-Depends, as apt
installs them with --no-install-recommends), or is on every Debian system
(Essential or Priority required, and their closure). Files outside any package
pass only under an allowed prefix (the CUDA toolkit under /usr/local/cuda*).

  debian_deps.py --source DIR --build DIR              check; exit 1 naming each missing package
  debian_deps.py --source DIR --build DIR --drop PKG   check with PKG taken out of the list:
                                                       exit 0 only when PKG is then reported missing
                                                       (proves the check can fail)

scripts/install-deps.sh itself is not followed: it installs packages, it does not use them.
"""
import argparse
import ast
import json
import glob
import os
import re
import shlex
import subprocess
import sys

# Files outside Debian's packages that the project may use: the CUDA toolkit is
# installed from NVIDIA's runfile, not from a Debian package.
ALLOWED_PREFIXES = ("/usr/local/cuda/", "/usr/local/cuda-")
# Where a fresh Debian system looks for commands (its default PATH, less
# /usr/local, which holds nothing on a fresh machine).
DEBIAN_BIN_DIRS = ("/usr/sbin", "/usr/bin", "/sbin", "/bin")
# Command words whose next non-option word is a command too.
COMMAND_PREFIXES = {"exec", "command", "env", "nice", "nohup", "timeout", "xargs", "unshare", "sudo",
                    "stdbuf", "time", "then", "do", "else", "elif", "if", "while", "until", "!", "{", "(",
                    "which", "type"}
SHELL_SEPARATORS = {";", ";;", "|", "||", "&", "&&", "(", ")", "{", "}", "`", "$(", "|&"}
ABSOLUTE_PATH = re.compile(r"(?<![\w.$}])(/(?:usr|etc|bin|sbin|lib|lib64|opt)/[^\s\"'`;|&()<>$*,]+)")
REPO_SCRIPT = re.compile(r"[\w.${}/-]*?([\w./-]+\.(?:sh|py))\b")
# A C++ string literal that is (part of) a shell command line.
SHELL_FRAGMENT = re.compile(r"^[\w./:-]+\s+(-{1,2}\w|\||>|<|&&)|(\||&&|;)\s*[\w./-]+\s+(-{1,2}\w|'|\")")
CXX_STRING = re.compile(r'"((?:[^"\\\n]|\\.)*)"')


class Uses:
    """What the build, the tests and the demo use: path -> the first reason seen."""

    def __init__(self, source, build):
        self.source, self.build = os.path.realpath(source), os.path.realpath(build)
        self.paths = {}
        self.unresolved_commands = {}

    def add_path(self, path, why):
        if not path.startswith("/") or "\0" in path or path.startswith(("/proc/", "/dev/", "/tmp/", "/sys/")):
            return
        real = os.path.realpath(path)
        if real.startswith((self.source + "/", self.build + "/")) or real in (self.source, self.build):
            return
        if os.path.exists(path):
            self.paths.setdefault(os.path.normpath(path), why)

    def add_command(self, word, why, builtins):
        if not word or word in builtins or word in SHELL_SEPARATORS or any(c in word for c in "$=*?[]{}<>\\"):
            return
        if word.startswith("/"):
            self.add_path(word, why)
            return
        if "/" in word or not re.fullmatch(r"[\w.+-]+", word):
            return
        for directory in DEBIAN_BIN_DIRS:
            candidate = os.path.join(directory, word)
            if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
                self.add_path(candidate, why)
                return
        self.unresolved_commands.setdefault(word, why)


# ---------------------------------------------------------------- the build

def depfile_paths(text):
    """The prerequisites of a make-format dependency file."""
    paths = []
    for line in text.replace("\\\n", " ").splitlines():
        _, colon, rest = line.partition(": ")
        if not colon:
            continue
        paths.extend(word for word in rest.replace("\\ ", "\0").split())
    return [p.replace("\0", " ") for p in paths]


def collect_build(uses):
    for directory, _, files in os.walk(uses.build):
        for name in files:
            path = os.path.join(directory, name)
            rel = os.path.relpath(path, uses.build)
            if name.endswith(".d") or name == "compiler_depend.make":
                with open(path, errors="replace") as f:
                    for used in depfile_paths(f.read()):
                        uses.add_path(used, "header (" + rel + ")")
            elif name == "link.txt":
                with open(path) as f:
                    collect_link_line(uses, f.read(), rel)
            elif is_elf(path):
                collect_ldd(uses, path, rel)
    collect_cmake_cache(uses)


def collect_link_line(uses, text, rel):
    words = text.split()
    if words:
        uses.add_path(words[0], "linker (" + rel + ")")
    for word in words:
        if word.startswith("-l") and len(word) > 2 and not word.startswith("-l:"):
            for suffix in (".so", ".a"):
                found = subprocess.run(["g++", "-print-file-name=lib" + word[2:] + suffix],
                                       capture_output=True, text=True).stdout.strip()
                if found.startswith("/"):
                    uses.add_path(found, "library " + word + " (" + rel + ")")
                    break
        elif word.startswith("/") and re.search(r"\.(a|so)(\.\d+)*$", word):
            uses.add_path(word, "library (" + rel + ")")


def is_elf(path):
    if os.path.islink(path) or not os.path.isfile(path):
        return False
    try:
        with open(path, "rb") as f:
            return f.read(4) == b"\x7fELF"
    except OSError:
        return False


def collect_ldd(uses, path, rel):
    result = subprocess.run(["ldd", path], capture_output=True, text=True)
    if result.returncode != 0:
        return  # not dynamic (static library members, objects)
    for line in result.stdout.splitlines():
        match = re.search(r"(?:=>\s*)?(/\S+)\s+\(0x", line)
        if match:
            uses.add_path(match.group(1), "runtime library of " + rel)


def collect_cmake_cache(uses):
    cache = os.path.join(uses.build, "CMakeCache.txt")
    with open(cache) as f:
        for line in f:
            match = re.match(r"([\w.+-]+):(FILEPATH|INTERNAL)=(/.+)$", line.strip())
            if not match:
                continue
            name, kind, value = match.groups()
            if kind == "FILEPATH" or name in ("CMAKE_COMMAND", "CMAKE_CTEST_COMMAND"):
                if os.path.isfile(value):
                    uses.add_path(value, "CMake's " + name)


# ---------------------------------------------------------------- tests and demo

class ScriptWalker:
    """Follows the scripts the tests and the demo run, collecting what they use."""

    def __init__(self, uses, builtins, python_modules):
        self.uses, self.builtins, self.python_modules = uses, builtins, python_modules
        self.seen = set()
        self.skip = {os.path.join(uses.source, "scripts", "install-deps.sh")}

    def visit(self, path, why):
        path = os.path.realpath(path)
        if path in self.seen or path in self.skip or not os.path.isfile(path):
            return
        self.seen.add(path)
        rel = os.path.relpath(path, self.uses.source)
        with open(path, errors="replace") as f:
            text = f.read()
        first = text.splitlines()[0] if text else ""
        if first.startswith("#!"):
            for word in first[2:].split()[:2]:
                self.uses.add_command(word, "interpreter of " + rel, self.builtins)
        if path.endswith(".py") or "python" in first:
            self.python(text, rel, path)
        elif path.endswith(".sh") or (first.startswith("#!") and "sh" in first):
            self.shell(text, rel, path)
        elif path.endswith((".cpp", ".h", ".cu")):
            self.cxx(text, rel, path)

    def visit_sourced(self, path, by):
        """A shell script that `by` sources: read as `by`'s own text, so the
        shell functions `by` defines are not taken for programs."""
        with open(by, errors="replace") as f:
            definitions = re.findall(r"^\s*(?:function\s+)?[\w-]+\s*\(\)", f.read(), re.M)
        with open(path, errors="replace") as f:
            text = f.read()
        self.seen.add(os.path.realpath(path))
        self.shell("\n".join(definitions) + "\n" + text, os.path.relpath(path, self.uses.source), path)

    def referenced_scripts(self, text, here):
        for match in REPO_SCRIPT.finditer(text):
            tail = match.group(1)
            for base in (os.path.dirname(here), self.uses.source):
                for candidate in (os.path.join(base, tail), os.path.join(base, tail.lstrip("./"))):
                    if os.path.isfile(candidate) and os.path.realpath(candidate).startswith(self.uses.source + "/"):
                        yield candidate

    def absolute_paths(self, text, rel):
        for match in ABSOLUTE_PATH.finditer(text):
            self.uses.add_path(match.group(1).rstrip(".:"), "named in " + rel)

    def shell(self, text, rel, path):
        body, heredocs = split_heredocs(text)
        for word in shell_command_words(body):
            self.uses.add_command(word, "run by " + rel, self.builtins)
        for opener, heredoc in heredocs:
            if "python" in opener:
                self.python_imports(heredoc, rel)
        self.absolute_paths(text, rel)
        for script in self.referenced_scripts(text, path):
            self.visit(script, "run by " + rel)

    def python(self, text, rel, path):
        self.python_imports(text, rel)
        try:
            tree = ast.parse(text)
        except SyntaxError:
            tree = None
        if tree is not None:
            for node in ast.walk(tree):
                if isinstance(node, ast.Call) and node.args and is_process_call(node.func):
                    program = node.args[0]
                    if isinstance(program, (ast.List, ast.Tuple)) and program.elts:
                        program = program.elts[0]
                    if isinstance(program, ast.Constant) and isinstance(program.value, str):
                        for word in shell_command_words(program.value):
                            self.uses.add_command(word, "run by " + rel, self.builtins)
        self.absolute_paths(text, rel)
        for script in self.referenced_scripts(text, path):
            self.visit(script, "run by " + rel)

    def python_imports(self, text, rel):
        try:
            tree = ast.parse(text)
        except SyntaxError:
            return
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            for name in names:
                self.python_modules.setdefault(name.split(".")[0], "imported by " + rel)

    def cxx(self, text, rel, path):
        """A test source. Its string literals that read as shell commands (handed to
        system()/popen(): an option, a pipe, a redirection or `&&` after the first word)
        name programs; so do find_program("NAME") lookups and absolute paths."""
        code = re.sub(r"//[^\n]*", "", text)
        for match in CXX_STRING.finditer(code):
            literal = re.sub(r"\\(.)", lambda m: {"n": "\n", "t": " "}.get(m.group(1), m.group(1)), match.group(1))
            if SHELL_FRAGMENT.search(literal):
                # A literal that starts with a blank continues a command line: its first word is an argument.
                for word in shell_command_words(literal, first_is_command=not literal[:1].isspace()):
                    self.uses.add_command(word, "command in " + rel, self.builtins)
            for python_code in re.findall(r"python3 -c '([^']*)'", literal):
                self.python_imports(python_code, rel)
        for name in re.findall(r"\bfind_program\(\s*\"([\w.+-]+)\"", code):
            self.uses.add_command(name, "looked up in " + rel, self.builtins)
        self.absolute_paths(code, rel)


def is_process_call(func):
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    return name in ("run", "call", "check_call", "check_output", "Popen", "execv", "execvp", "execvpe", "system")


def split_heredocs(text):
    """The script without its here-documents, and the documents (opening line, body)."""
    body, heredocs, lines, i = [], [], text.splitlines(), 0
    while i < len(lines):
        line = lines[i]
        body.append(line)
        match = re.search(r"<<-?\s*(['\"]?)(\w+)\1", line)
        i += 1
        if match and "<<<" not in line:
            terminator, doc = match.group(2), []
            while i < len(lines) and lines[i].strip() != terminator:
                doc.append(lines[i])
                i += 1
            heredocs.append((line, "\n".join(doc)))
            i += 1
    return "\n".join(body), heredocs


def shell_command_words(text, first_is_command=True):
    """The words in command position of shell text (first word, after separators and keywords),
    less the shell functions the text defines."""
    functions = set(re.findall(r"^\s*(?:function\s+)?([\w-]+)\s*\(\)", text, re.M))
    words = []
    for line in text.replace("\\\n", " ").splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        try:
            lexer = shlex.shlex(line, posix=True, punctuation_chars=";&|()`")
            lexer.whitespace_split = True
            lexer.commenters = "#"
            tokens = list(lexer)
        except ValueError:
            tokens = re.findall(r"[^\s;&|()`]+|[;&|()`]+", line)
        at_command = first_is_command
        first_is_command = True
        for token in tokens:
            if token in SHELL_SEPARATORS or set(token) <= set(";&|()`"):
                at_command = True
                continue
            if token.endswith("()") or token in ("function",):
                at_command = False
                continue
            if at_command:
                if re.fullmatch(r"[A-Za-z_]\w*(\[[^]]*\])?\+?=.*", token) or token.startswith("-"):
                    continue  # an assignment or an option before the command: still in command position
                if token not in functions:
                    words.append(token)
                at_command = token in COMMAND_PREFIXES
    return words


def collect_tests(uses, walker):
    listing = subprocess.run(["ctest", "--test-dir", uses.build, "--show-only=json-v1"],
                             capture_output=True, text=True, check=True)
    for test in json.loads(listing.stdout).get("tests", []):
        command = test.get("command") or []
        why = "CTest " + test["name"]
        if command:
            uses.add_command(command[0], why, walker.builtins)
        for arg in command[1:]:
            if os.path.isfile(arg):
                if os.path.realpath(arg).startswith(uses.source + "/"):
                    walker.visit(arg, why)
                else:
                    uses.add_path(arg, why)
    tests_dir = os.path.join(uses.source, "tests")
    for directory, _, files in os.walk(tests_dir):
        if os.sep + "corpus" in directory:
            continue
        for name in sorted(files):
            if name.endswith((".cpp", ".h", ".cu", ".sh", ".py")) and directory != os.path.dirname(__file__):
                walker.visit(os.path.join(directory, name), "test source")


def collect_python_modules(uses, modules):
    """Maps each imported top-level module to its file as Debian's python3 finds it."""
    if not modules or not os.path.exists("/usr/bin/python3"):
        return
    probe = ("import importlib.util, json, sys\n"
             "out = {}\n"
             "for name in sys.argv[1:]:\n"
             "    try:\n"
             "        spec = importlib.util.find_spec(name)\n"
             "    except (ImportError, ValueError):\n"
             "        spec = None\n"
             "    out[name] = spec.origin if spec and spec.origin else ''\n"
             "print(json.dumps(out))\n")
    found = json.loads(subprocess.run(["/usr/bin/python3", "-c", probe, *sorted(modules)],
                                      capture_output=True, text=True, check=True).stdout)
    for name, origin in found.items():
        if origin.startswith("/"):
            uses.add_path(origin, "Python module " + name + ", " + modules[name])


# ---------------------------------------------------------------- packages

def usrmerge_aliases(path):
    """Debian 12 merges /bin, /sbin, /lib* into /usr; dpkg knows each file by one of the two names."""
    for short in ("/bin/", "/sbin/", "/lib/", "/lib64/", "/lib32/"):
        if path.startswith("/usr" + short):
            return [path, path[4:]]
        if path.startswith(short):
            return [path, "/usr" + path]
    return [path]


def dpkg_owners(paths):
    """path -> set of owning packages, for the paths dpkg knows."""
    owners = {}
    paths = sorted(set(paths))
    for start in range(0, len(paths), 400):
        batch = paths[start:start + 400]
        result = subprocess.run(["dpkg", "-S", *[glob_escape(p) for p in batch]], capture_output=True, text=True)
        for line in result.stdout.splitlines():
            if line.startswith("diversion "):
                continue
            packages, sep, path = line.rpartition(": ")
            if sep:
                owners.setdefault(path, set()).update(p.strip().split(":")[0] for p in packages.split(","))
    return owners


def glob_escape(path):
    return re.sub(r"([*?\[\]])", r"[\1]", path)


def package_files_of(uses):
    """path -> the packages it needs: the owner of the path as named, and of what it points to."""
    candidates = {}
    for path in uses.paths:
        names = set(usrmerge_aliases(path))
        real = os.path.realpath(path)
        names.update(usrmerge_aliases(real))
        candidates[path] = (names, real)
    owners = dpkg_owners(n for names, _ in candidates.values() for n in names)
    needs = {}
    for path, (names, real) in candidates.items():
        as_named = set().union(*(owners.get(n, set()) for n in usrmerge_aliases(path)))
        resolved = set().union(*(owners.get(n, set()) for n in usrmerge_aliases(real)))
        needs[path] = (as_named, resolved)
    return needs


def installed_packages():
    fmt = "${Package}\t${db:Status-Status}\t${Essential}\t${Priority}\t${Pre-Depends}\t${Depends}\t${Provides}\n"
    result = subprocess.run(["dpkg-query", "-W", "-f=" + fmt], capture_output=True, text=True, check=True)
    packages, providers = {}, {}
    for line in result.stdout.splitlines():
        name, status, essential, priority, pre_depends, depends, provides = (line.split("\t") + [""] * 7)[:7]
        if status != "installed":
            continue
        packages[name] = {"base": essential == "yes" or priority == "required",
                          "depends": [group for field in (pre_depends, depends) for group in split_depends(field)]}
        for virtual in split_names(provides):
            providers.setdefault(virtual, []).append(name)
    return packages, providers


def split_names(field):
    return [re.split(r"[\s(:]", item.strip(), maxsplit=1)[0] for item in field.split(",") if item.strip()]


def split_depends(field):
    """Depends as a list of alternatives groups: [["a"], ["b", "c"]] for "a, b | c"."""
    return [[re.split(r"[\s(:]", alt.strip(), maxsplit=1)[0] for alt in group.split("|") if alt.strip()]
            for group in field.split(",") if group.strip()]


def closure(roots, packages, providers):
    """The packages apt installs for `roots` (Depends and Pre-Depends, no Recommends).
    Of alternatives it takes the first one installed here, as apt does on a fresh machine
    when nothing else asked for another."""
    done, todo = set(), list(roots)
    while todo:
        name = todo.pop()
        real = [name] if name in packages else providers.get(name, [])
        for package in real:
            if package in done:
                continue
            done.add(package)
            for group in packages[package]["depends"]:
                chosen = next((alt for alt in group if alt in packages or alt in providers), None)
                if chosen:
                    todo.append(chosen)
    return done


# ---------------------------------------------------------------- report

def install_list(source, drop):
    listed = subprocess.run(["bash", os.path.join(source, "scripts", "install-deps.sh"), "--list"],
                            capture_output=True, text=True, check=True).stdout.split()
    return [p for p in listed if p != drop]


def bash_builtins():
    result = subprocess.run(["bash", "-c", "compgen -b; compgen -k"], capture_output=True, text=True, check=True)
    return set(result.stdout.split()) | {"[[", "]]"}


def check(source, build, drop):
    uses = Uses(source, build)
    collect_build(uses)
    modules = {}
    walker = ScriptWalker(uses, bash_builtins(), modules)
    collect_tests(uses, walker)
    walker.visit(os.path.join(uses.source, "scripts", "demo.sh"), "the demo")
    # The demo sources each kind's extras by a computed path the walker cannot
    # follow; they run with the demo's shell functions defined.
    demo = os.path.join(uses.source, "scripts", "demo.sh")
    for extras in sorted(glob.glob(os.path.join(uses.source, "kernels", "*", "demo_extras.sh"))):
        walker.visit_sourced(extras, demo)
    collect_python_modules(uses, modules)

    listed = install_list(source, drop)
    packages, providers = installed_packages()
    base = [name for name, info in packages.items() if info["base"]]
    covered = closure(listed + base, packages, providers)
    unknown = [name for name in listed if name not in packages and name not in providers]

    missing, unowned, used = {}, {}, set()
    for path, (as_named, resolved) in sorted(package_files_of(uses).items()):
        if path.startswith(ALLOWED_PREFIXES) or os.path.realpath(path).startswith(ALLOWED_PREFIXES):
            continue
        if not as_named and not resolved:
            # Under /usr a file of no package was put there by hand (pip, make install, a copy);
            # elsewhere (/etc/passwd and the like) maintainer scripts make files dpkg does not list.
            if path.startswith("/usr/") and os.path.isfile(path):
                unowned[path] = uses.paths[path]
            continue
        for owners in {frozenset(as_named), frozenset(resolved)} - {frozenset()}:
            # A directory has many owners; any one of them installed makes it exist.
            if os.path.isfile(path):
                used.update(owners)
            if not owners & covered:
                missing.setdefault(" or ".join(sorted(owners)), []).append((path, uses.paths[path]))
    return uses, listed, used, missing, unowned, unknown


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", required=True)
    parser.add_argument("--build", required=True)
    parser.add_argument("--drop", help="take this package out of the list; pass only if it is then reported missing")
    args = parser.parse_args()

    uses, listed, used, missing, unowned, unknown = check(args.source, args.build, args.drop)
    print(f"debian_deps: {len(uses.paths)} files and directories used outside the project, "
          f"the files from {len(used)} packages; "
          f"install-deps.sh lists {len(listed)}")
    if uses.unresolved_commands:
        print("debian_deps: note: words in command position that are no program on a Debian path here "
              "(case labels, optional tools such as nvidia-smi): " + " ".join(sorted(uses.unresolved_commands)))
    for name in unknown:
        print(f"debian_deps: error: install-deps.sh lists {name}, which is not installed here")
    for path, why in sorted(unowned.items()):
        print(f"debian_deps: error: {path} ({why}) belongs to no Debian package and is not under an allowed prefix")
    for package, examples in sorted(missing.items()):
        shown = "; ".join(f"{path} ({why})" for path, why in examples[:3])
        more = f" and {len(examples) - 3} more" if len(examples) > 3 else ""
        print(f"debian_deps: error: package {package} is used but install-deps.sh neither lists it nor pulls it in: "
              f"{shown}{more}")

    if args.drop:
        caught = any(args.drop in package.split(" or ") for package in missing)
        print(f"debian_deps: with {args.drop} taken out of the list the check "
              f"{'fails, naming it, as it must' if caught else 'does NOT report it'}")
        return 0 if caught else 1
    if missing or unowned or unknown:
        return 1
    print("debian_deps: every package used is installed by scripts/install-deps.sh")
    return 0


if __name__ == "__main__":
    sys.exit(main())
