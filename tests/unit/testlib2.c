/* A second library for registration order: defines tjtest_triple too. */
int tjtest_triple(int x) { return 1000 + x; }
