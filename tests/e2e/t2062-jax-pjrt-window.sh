#!/bin/sh
# tier: expensive (JAX; make test QUICK=1 skips it, CI runs it)
# jax_m1_plugin's window (issue 25): built for jaxlib 0.10.2, it loads
# into jaxlib >=0.10,<0.11. Under the released jax/jaxlib 0.9.2 from the
# index it says so once, naming both versions, registers nothing, and
# JAX works on the CPU, with JAX_PLATFORMS unset and =cpu. pip refuses
# that pairing first (the wheel's Requires-Dist, derived from the
# framework record, is jaxlib==0.10.2); the check at import time is for
# the installs that go around the resolver (--no-deps, a jaxlib changed
# afterwards, PYTHONPATH), which pip check then reports.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TESTS_DIR/lib/jax.sh"

mkdir -p c && cp -R "$SRC_ROOT/recipes" "$SRC_ROOT/backend" c/ || exit 1

expect_success 'the x86_64 wheel builds' '
	jax_build c build wheels --target x86_64 2>err &&
	ls wheels/jax_m1_plugin-1.0.0-py3-none-manylinux_*_x86_64.whl
'
whl=$(ls wheels/jax_m1_plugin-*_x86_64.whl 2>/dev/null)

expect_success 'a venv with jax 0.9.2 (hash-pinned): pip refuses the wheel, --no-deps puts it there' '
	w=$(jax_wheels "$jax_req/jax-0.9.2.txt" x86_64) &&
	"$PYTHON" -m venv venv &&
	venv/bin/pip install -q --disable-pip-version-check --no-index \
		--find-links "$w" --require-hashes -r "$jax_req/jax-0.9.2.txt" &&
	! venv/bin/pip install -q --disable-pip-version-check --no-index \
		--find-links "$w" "$whl" 2>err &&
	cat err &&
	grep -q "No matching distribution found for jax\(lib\)\?==0.10.2" err &&
	venv/bin/pip install -q --disable-pip-version-check --no-index --no-deps "$whl" &&
	! venv/bin/pip check >out &&
	cat out &&
	grep -qx "jax-m1-plugin 1.0.0 has requirement jaxlib==0.10.2, but you have jaxlib 0.9.2." out
'

cat >run.py <<'EOF_PY'
import jax
import jax.numpy as jnp
import numpy as np

print("jaxlib", jax.lib.__version__ if hasattr(jax.lib, "__version__")
      else __import__("jaxlib").__version__)
print(jax.devices(), int(jnp.arange(5).sum()))
x = jax.device_put(np.arange(3, dtype=np.float32))
print(np.asarray(x * 2).tolist())
try:
    jax.devices("m1")
except RuntimeError as e:
    print("no m1:", e)
EOF_PY

echo "jax_m1_plugin 1.0.0 was built for jaxlib 0.10.2 (PJRT C API 0.90; it loads into jaxlib >=0.10,<0.11), but the running jaxlib is 0.9.2: the m1 platform is not registered" >want

for platforms in unset cpu; do
	expect_success "outside the window (JAX_PLATFORMS $platforms): one message, the CPU works" '
		(cd / && if [ $platforms = unset ]; then unset JAX_PLATFORMS; else
			JAX_PLATFORMS=$platforms; export JAX_PLATFORMS; fi &&
		 "$TRASH/venv/bin/python" "$TRASH/run.py") >out 2>err &&
		grep -qx "jaxlib 0.9.2" out &&
		grep -qx "\[CpuDevice(id=0)\] 10" out &&
		grep -qx "\[0.0, 2.0, 4.0\]" out &&
		grep -q "^no m1: Unknown backend m1" out &&
		compare want err
	'
done

test_done
