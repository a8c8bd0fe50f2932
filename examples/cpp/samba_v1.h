// The one header a C++ client of samba.v1 includes: every generated message, the Adjudicator
// stub and the google.rpc error details, in a form that compiles where <windows.h> has
// defined OPTIONAL (docs/clients.md#windows-and-the-optional-macro).
//
// Why: every samba/v1 header includes google/api/field_behavior.pb.h, whose enum has a value
// named OPTIONAL, and <windows.h> defines OPTIONAL as an empty macro, so the enum reads
// `= 1` and fails to parse ("expected identifier"). protobuf's own headers set such macros
// aside only under MSVC (_MSC_VER, google/protobuf/port_def.inc); MinGW, clang without
// MSVC emulation and older protobuf releases see the macro. The macro is set aside around
// the generated headers and restored after them, so the code that includes this header
// keeps windows.h's OPTIONAL as it was.
//
// The generated .pb.cc files include their own headers: where windows.h reaches them too (a
// precompiled or forced header), compile them with this header forced in first
// (g++/clang `-include samba_v1.h`, MSVC `/FI samba_v1.h`); the include guards then keep
// the generated headers from being read again with the macro defined.
#ifndef SAMBA_V1_H_
#define SAMBA_V1_H_

#pragma push_macro("OPTIONAL")
#undef OPTIONAL

#include "google/rpc/error_details.pb.h"
#include "google/rpc/status.pb.h"
#include "samba/v1/adjudicator.grpc.pb.h"
#include "samba/v1/adjudicator.pb.h"

#pragma pop_macro("OPTIONAL")

#endif  // SAMBA_V1_H_
