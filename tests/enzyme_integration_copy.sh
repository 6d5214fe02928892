#!/bin/sh
# Copies one of Enzyme's integration test programs (from the checkout named
# by -Denzyme_integration) into the build directory, its "../test_utils.h"
# (Enzyme's harness, beside the original) replaced by HEADER, the suite's
# own test_utils.h named by absolute path.
# Usage: enzyme_integration_copy.sh IN OUT HEADER
set -eu
sed "s#\"\\.\\./test_utils\\.h\"#\"$3\"#" "$1" >"$2"
