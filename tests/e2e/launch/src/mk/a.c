int mk_b(int x);
int mk_a(int x) { return mk_b(x) * 3 + 1; }
