// ieee_float_mode.cpp: the app computes with IEEE subnormals, as the server's
// validator does when it recomputes a result (core/float_environment.h says
// why Debian's BOINC library would have it otherwise).
//
// A static initializer of the executable: it runs after the shared libraries'
// load-time constructors (the one that sets flush-to-zero among them) and
// before main(), so before any thread or any science code exists.
#include "core/float_environment.h"

namespace {

const bool g_ieee_float_mode = [] {
  helix::use_ieee_subnormals();
  return true;
}();

}  // namespace
