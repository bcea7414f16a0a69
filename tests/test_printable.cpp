// ossa::printable() and the messages built on it: what a hostile file puts in a name reaches a terminal or a
// log only as escapes that show it.
#include <gtest/gtest.h>

#include <string>

#include "ossa/core/printable.h"
#include "ossa/core/result.h"

namespace ossa {
namespace {
using namespace std::string_literals;

TEST(Printable, ControlBytesAndDelAreEscaped) {
  EXPECT_EQ(printable("a\x1b]0;owned\x07"s), "a\\x1B]0;owned\\x07");
  EXPECT_EQ(printable("cut\0here"s), "cut\\x00here");  // a NUL no longer ends the message
  EXPECT_EQ(printable("line\nfake\r\t\x7f"s), "line\\x0Afake\\x0D\\x09\\x7F");
}

TEST(Printable, Utf8TextStaysAndItsControlsAreEscaped) {
  EXPECT_EQ(printable("Köpf_头_🙂"s), "Köpf_头_🙂");
  EXPECT_EQ(printable("a\xe2\x80\xae"
                      "gpj.exe"s),
            "a\\u202Egpj.exe");  // right-to-left override
  EXPECT_EQ(printable("\xe2\x81\xa6|\xd8\x9c|\xe2\x80\x8f"s), "\\u2066|\\u061C|\\u200F");
  EXPECT_EQ(printable("b\xc2\x9b"
                      "2J"s),
            "b\\u009B2J");  // C1 CSI
}

TEST(Printable, BytesThatAreNotUtf8AreEscapedOneByOne) {
  EXPECT_EQ(printable("j\xff\xfe"s), "j\\xFF\\xFE");
  EXPECT_EQ(printable("\xc0\xaf"s), "\\xC0\\xAF");                    // overlong '/'
  EXPECT_EQ(printable("\xed\xa0\x80"s), "\\xED\\xA0\\x80");           // a surrogate
  EXPECT_EQ(printable("\xf4\x90\x80\x80"s), "\\xF4\\x90\\x80\\x80");  // past U+10FFFF
  EXPECT_EQ(printable("\xe4\xb8"s), "\\xE4\\xB8");                    // cut short at the end
}

TEST(Printable, EscapingTwiceChangesNothing) {
  const std::string once = printable("a\x1b\0\xe2\x80\xae\xff"s);
  EXPECT_EQ(printable(once), once);
}

TEST(Printable, EveryResultMessageIsEscaped) {
  const auto r = Result<int>::failure("walk.fbx: joint 'a\x1b[2J\0b' is bad"s);
  EXPECT_EQ(r.error(), "walk.fbx: joint 'a\\x1B[2J\\x00b' is bad");
}

}  // namespace
}  // namespace ossa
