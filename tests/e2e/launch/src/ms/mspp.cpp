#include <string>
extern "C" int ms_cpp(const char *s) { return (int)std::string(s).size(); }
