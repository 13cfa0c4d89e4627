#!/bin/sh
# The release pipeline (issue 10 item 4): ci/github/release.yml parses
# (python3-yaml) and has the job graph docs/distributed.md describes:
# a matrix of native runners plus the cross build, a native/cross
# comparison, one merge, attestation and trusted publishing on tags only,
# least permissions per job. actionlint checks it where it is installed
# (not in Debian 12). ci/install-deps.sh asks for the right packages on
# an arm64 build machine (a fake dpkg says arm64; dry-run mode).
. "$(dirname "$0")/../lib/test-lib.sh"

W="$SRC_ROOT/ci/github/release.yml"

cat >check.py <<'PYEOF'
import sys, yaml

wf = yaml.safe_load(open(sys.argv[1]))
jobs = wf["jobs"]
on = wf.get("on", wf.get(True))  # YAML 1.1 reads a bare `on` as true
problems = []

def need(cond, what):
    if not cond:
        problems.append(what)

def needs(job):
    n = jobs[job].get("needs", [])
    return {n} if isinstance(n, str) else set(n)

def uses(job):
    return [s.get("uses", "") for s in jobs[job]["steps"]]

def tags_only(job):
    return "startsWith(github.ref, 'refs/tags/')" in str(jobs[job].get("if", ""))

need(wf.get("permissions") == {}, "top-level permissions are not {}")
need(on["push"]["tags"] == ["v*"], "not triggered by v* tags")
need(set(jobs) == {"build", "compare", "merge", "attest", "publish"},
     "jobs are %s" % sorted(jobs))
matrix = {(m["target"], m["kind"], m["runner"])
          for m in jobs["build"]["strategy"]["matrix"]["include"]}
need(matrix == {("x86_64", "native", "ubuntu-24.04"),
                ("aarch64", "native", "ubuntu-24.04-arm"),
                ("aarch64", "cross", "ubuntu-24.04")}, "matrix is %s" % matrix)
need(jobs["build"]["runs-on"] == "${{ matrix.runner }}", "build not on matrix.runner")
def image(job):
    c = jobs[job].get("container")
    return c.get("image") if isinstance(c, dict) else c

for j in ("build", "compare"):
    need(image(j) == "debian:12", j + " not in debian:12")
# the build job's steps run under bubblewrap, which Docker's defaults forbid
c = jobs["build"].get("container")
need(isinstance(c, dict) and "--privileged" in c.get("options", "").split(),
     "build's container cannot make the step sandbox's namespaces")
need(not isinstance(jobs["compare"].get("container"), dict)
     or "--privileged" not in jobs["compare"]["container"].get("options", ""),
     "compare runs privileged, though it builds nothing")
need("--target \"$TARGET\"" in str(jobs["build"]["steps"]), "build ignores the target")
up = [s for s in jobs["build"]["steps"] if s.get("uses", "").startswith("actions/upload-artifact@")]
need(len(up) == 1 and "${{ matrix.target }}" in up[0]["with"]["name"]
     and "${{ matrix.kind }}" in up[0]["with"]["name"], "no per-target artifact")
need(needs("compare") == {"build"}, "compare needs %s" % needs("compare"))
need("tfbuild diff" in str(jobs["compare"]["steps"]), "compare does not run tfbuild diff")
need("cmp " in str(jobs["compare"]["steps"]), "compare does not compare bytes")
need(needs("merge") >= {"build", "compare"}, "merge needs %s" % needs("merge"))
need("SHA256SUMS" in str(jobs["merge"]["steps"]) and ".intoto.jsonl" in str(jobs["merge"]["steps"]),
     "merge writes no SHA256SUMS or provenance")
need(needs("attest") == {"merge"}, "attest needs %s" % needs("attest"))
need(any(u.startswith("actions/attest-build-provenance@") for u in uses("attest")),
     "no attest-build-provenance step")
need(needs("publish") >= {"merge", "attest", "compare"}, "publish needs %s" % needs("publish"))
need(any(u.startswith("pypa/gh-action-pypi-publish@") for u in uses("publish")),
     "publish does not use pypa/gh-action-pypi-publish")
need(not any("password" in str(s.get("with", {})) for s in jobs["publish"]["steps"]),
     "publish uses a token, not trusted publishing")
for j in ("attest", "publish"):
    need(tags_only(j), j + " runs on more than tags")
for j in ("build", "compare", "merge"):
    need(not tags_only(j), j + " runs on tags only")
want = {
    "build": {"contents": "read"},
    "compare": {"contents": "read"},
    "merge": {"contents": "read"},
    "attest": {"contents": "read", "id-token": "write", "attestations": "write"},
    "publish": {"id-token": "write"},
}
for j, p in want.items():
    need(jobs[j].get("permissions") == p,
         "%s permissions are %s, want %s" % (j, jobs[j].get("permissions"), p))
for j in jobs:
    for s in jobs[j]["steps"]:
        if s.get("uses", "").startswith("actions/checkout@"):
            need(s.get("with", {}).get("persist-credentials") is False,
                 j + ": checkout keeps its credentials")
print("\n".join(problems) if problems else "ok")
sys.exit(1 if problems else 0)
PYEOF

expect_success 'release.yml: the job graph, matrix, permissions and tag-only publishing' '
	/usr/bin/python3 check.py "$W"
'

expect_success 'the checker catches a job that asks for too much' '
	sed "s/^      contents: read\$/      contents: write/" "$W" >wider.yml &&
	! /usr/bin/python3 check.py wider.yml >out && grep -q "permissions are" out &&
	sed "s/^    if: startsWith(github.ref, .refs\/tags\/.)\$//" "$W" >always.yml &&
	! /usr/bin/python3 check.py always.yml >out && grep -q "runs on more than tags" out
'

if command -v actionlint >/dev/null; then
	expect_success 'actionlint accepts release.yml' 'actionlint "$W"'
else
	skip 'actionlint is not installed (not packaged in Debian 12): only the python3-yaml checks ran'
fi

# A build machine that says it is arm64, where nothing is installed yet.
mkdir fake
cat >fake/dpkg <<'SHEOF'
#!/bin/sh
case "$1" in
--print-architecture) echo "$FAKE_ARCH" ;;
--print-foreign-architectures) ;;
*) echo "fake dpkg: unexpected $*" >&2; exit 1 ;;
esac
SHEOF
printf '#!/bin/sh\nexit 1\n' >fake/dpkg-query
chmod +x fake/dpkg fake/dpkg-query

deps() {
	FAKE_ARCH=$1 TFBUILD_DEPS_DRY_RUN=1 PATH="$TRASH/fake:$PATH" \
		sh "$SRC_ROOT/ci/install-deps.sh" 2>&1
}

expect_success 'install-deps on arm64: the x86-64 cross compiler, amd64 headers, qemu' '
	deps arm64 >out && cat out &&
	grep -q "^would run: dpkg --add-architecture amd64\$" out &&
	grep "^would run: apt-get .* install " out >install &&
	for p in gcc-x86-64-linux-gnu g++-x86-64-linux-gnu libpython3-dev:amd64 qemu-user ccache redis-server distcc; do
		grep -q " $p\\( \\|\$\\)" install || { echo "missing $p"; exit 1; }
	done &&
	! grep -q "aarch64-linux-gnu\\|:arm64" install
'

expect_success 'install-deps on amd64: the aarch64 cross compiler and arm64 headers' '
	deps amd64 >out &&
	grep -q "^would run: dpkg --add-architecture arm64\$" out &&
	grep -q " gcc-aarch64-linux-gnu .*libpython3-dev:arm64" out &&
	! grep -q "x86-64-linux-gnu\\|:amd64" out
'

expect_success 'install-deps refuses an architecture it does not know' '
	! deps riscv64 >out && grep -q "unsupported build machine architecture .riscv64." out
'

test_done
