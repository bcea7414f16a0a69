// Test helper: component-wise closeness of two vectors, in model units.
#pragma once

#include <gtest/gtest.h>

#include "ossa/core/math.h"

namespace ossa::test {

inline void expect_near(Vec3 a, Vec3 b, float tolerance = 1e-5f) {
  EXPECT_NEAR(a.x, b.x, tolerance);
  EXPECT_NEAR(a.y, b.y, tolerance);
  EXPECT_NEAR(a.z, b.z, tolerance);
}

}  // namespace ossa::test
