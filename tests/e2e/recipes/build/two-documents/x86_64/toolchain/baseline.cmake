# CMake toolchain file for target x86_64 on its baseline CPU, written by tfbuild.
include("/work/wt/lockfetch/tests/e2e/recipes/build/two-documents/x86_64/toolchain/toolchain.cmake")
set(CMAKE_CROSSCOMPILING_EMULATOR "qemu-x86_64;-cpu;qemu64")
