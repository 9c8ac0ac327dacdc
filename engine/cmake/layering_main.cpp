// The program of engine/CMakeLists.txt's layering check: it only has to
// link. Its library is linked whole (every object), so each of that
// library's undefined symbols must come from the libraries it declares.
int main() { return 0; }
