//===- WheelArc4random.cpp - arc4random for the pip wheel's executable ----===//
//
// Only in the pip wheel (engine/CMakeLists.txt, if(SKBUILD)). Its static
// libstdc++ (GCC 12) seeds std::random_device with glibc's arc4random, new in
// glibc 2.36; that one symbol would make the wheel manylinux_2_36, which
// Ubuntu 22.04 (glibc 2.35) cannot install. This definition, in the
// executable, is bound instead: the same contract (a uniformly random 32-bit
// value, from the kernel's generator) through getrandom(2), in glibc since 2.25.
//===----------------------------------------------------------------------===//
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <sys/random.h>

extern "C" uint32_t arc4random(void) {
  uint32_t v;
  for (;;) {
    ssize_t n = getrandom(&v, sizeof v, 0);
    if (n == static_cast<ssize_t>(sizeof v))
      return v;
    if (n < 0 && errno != EINTR)
      std::abort(); // arc4random cannot fail; nor can the kernel's generator
  }
}
