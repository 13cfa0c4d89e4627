int cm_c(int x) { return x * 7; }
