int ms_c(int x) { return x - 11; }
