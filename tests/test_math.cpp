#include <gtest/gtest.h>
#include "ossa/core/math.h"
TEST(Math, Placeholder) { EXPECT_EQ(1, 1); }
