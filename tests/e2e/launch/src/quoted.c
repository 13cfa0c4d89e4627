/* Compiled by a script that runs "$CC" quoted. */
int quoted(int x) { return x ^ 0x5a; }
