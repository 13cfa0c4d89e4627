#include <vector>
extern "C" int cm_cpp(int n)
{
	std::vector<int> v(n, 2);
	int s = 0;
	for (int x : v)
		s += x;
	return s;
}
