// File: escape_test.cpp
#include "harness/report/escape.h"

#include <gtest/gtest.h>

namespace mr::report {
namespace {

TEST(Escape, MarkupAndQuotes) {
  EXPECT_EQ(text_escape("<script>alert('x')</script>"),
            "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;");
  EXPECT_EQ(text_escape("a\"b&c"), "a&quot;b&amp;c");
  EXPECT_EQ(text_escape("]]>"), "]]&gt;");
  EXPECT_EQ(attr_escape("a\tb\nc\rd\"e"), "a&#9;b&#10;c&#13;d&quot;e");
}

TEST(Escape, ControlCharactersAreShownNotDropped) {
  EXPECT_EQ(sanitize_text(std::string("a\0b", 3)), "a\\u{0000}b");
  EXPECT_EQ(sanitize_text("\x01\x1b[31m"), "\\u{0001}\\u{001B}[31m");
  EXPECT_EQ(sanitize_text("tab\tnl\ncr\r"), "tab\tnl\ncr\r");
  EXPECT_EQ(sanitize_text("\x7f"), "\\u{007F}");
  EXPECT_EQ(sanitize_text("\xc2\x85"), "\\u{0085}");      // C1 NEL
  EXPECT_EQ(sanitize_text("\xef\xbf\xbe"), "\\u{FFFE}");  // non-character
}

TEST(Escape, InvalidUtf8BecomesByteEscapes) {
  EXPECT_EQ(sanitize_text("\xff"), "\\xFF");
  EXPECT_EQ(sanitize_text("\xc3"), "\\xC3");                             // truncated
  EXPECT_EQ(sanitize_text("\xc0\xaf"), "\\xC0\\xAF");                    // overlong '/'
  EXPECT_EQ(sanitize_text("\xed\xa0\x80"), "\\xED\\xA0\\x80");           // surrogate
  EXPECT_EQ(sanitize_text("\xf4\x90\x80\x80"), "\\xF4\\x90\\x80\\x80");  // > U+10FFFF
  EXPECT_EQ(sanitize_text("\xe2\x82"), "\\xE2\\x82");
}

TEST(Escape, ValidUtf8IsKept) {
  EXPECT_EQ(sanitize_text("é – ✓ 𝄞"), "é – ✓ 𝄞");
  EXPECT_EQ(text_escape("PSN ≥ 0x10"), "PSN ≥ 0x10");
}

TEST(Escape, IdsAreInjectiveAndPlain) {
  EXPECT_EQ(id_escape("RC-PSN-004"), "RC-PSN-004");
  EXPECT_EQ(id_escape("a b\"<"), "a_20b_22_3C");
  EXPECT_NE(id_escape("a_20"), id_escape("a "));
}

TEST(Escape, Markdown) {
  EXPECT_EQ(md_escape("**x** | `y` <b>"), "\\*\\*x\\*\\* \\| \\`y\\` \\<b\\>");
  EXPECT_EQ(md_escape("line1\nline2"), "line1 line2");
  EXPECT_EQ(md_escape("[a](javascript:x)"), "\\[a\\](javascript:x)");
  EXPECT_EQ(md_escape("RC-PSN-004.mrt:12"), "RC-PSN-004.mrt:12");
}

}  // namespace
}  // namespace mr::report
