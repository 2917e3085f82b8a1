/* The floor of any ptxas wrapper: a static program that only hands its arguments to ptxas
   (bench/wrapper_overhead.py --floor compiles it with PTXAS set to the ptxas it measures). */
#include <unistd.h>

int main(int argc, char** argv) {
  (void)argc;
  execv(PTXAS, argv);
  return 127;
}
