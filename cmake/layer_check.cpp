// Linked with every object file of one layer and only the layers below it (CMakeLists.txt):
// the link fails when the layer calls into a layer above it.
int main() { return 0; }
