// File: escape.cpp
#include "harness/report/escape.h"

#include <cstdint>
#include <cstdio>

namespace mr::report {
namespace {

void append_byte_escape(std::string& out, unsigned char b) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "\\x%02X", b);
  out += buf;
}

void append_code_point_escape(std::string& out, uint32_t cp) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "\\u{%04X}", static_cast<unsigned>(cp));
  out += buf;
}

// Characters XML 1.0 allows (Char production) and HTML does not call a parse error:
// no C0 controls but tab/LF/CR, no DEL or C1 controls, no non-characters.
bool allowed_code_point(uint32_t cp) {
  if (cp == 0x9 || cp == 0xA || cp == 0xD) return true;
  if (cp < 0x20) return false;
  if (cp >= 0x7F && cp <= 0x9F) return false;
  if (cp >= 0xFDD0 && cp <= 0xFDEF) return false;
  if ((cp & 0xFFFE) == 0xFFFE) return false;  // U+xxFFFE and U+xxFFFF in every plane
  return true;
}

// Decodes one strictly valid UTF-8 sequence at s[i]: no overlong forms, no surrogates,
// nothing above U+10FFFF. Returns its length, or 0 when the bytes are invalid.
size_t decode_utf8(std::string_view s, size_t i, uint32_t& cp) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char b0 = byte(i);
  size_t len = 0;
  uint32_t min = 0;
  if (b0 < 0x80) {
    cp = b0;
    return 1;
  }
  if ((b0 & 0xE0) == 0xC0) {
    len = 2, cp = b0 & 0x1F, min = 0x80;
  } else if ((b0 & 0xF0) == 0xE0) {
    len = 3, cp = b0 & 0x0F, min = 0x800;
  } else if ((b0 & 0xF8) == 0xF0) {
    len = 4, cp = b0 & 0x07, min = 0x10000;
  } else {
    return 0;
  }
  if (i + len > s.size()) return 0;
  for (size_t k = 1; k < len; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (byte(i + k) & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return len;
}

}  // namespace

std::string sanitize_text(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    uint32_t cp = 0;
    const size_t len = decode_utf8(s, i, cp);
    if (len == 0) {
      append_byte_escape(out, static_cast<unsigned char>(s[i]));
      ++i;
      continue;
    }
    if (allowed_code_point(cp)) {
      out.append(s.substr(i, len));
    } else {
      append_code_point_escape(out, cp);
    }
    i += len;
  }
  return out;
}

std::string text_escape(std::string_view s) {
  const std::string clean = sanitize_text(s);
  std::string out;
  out.reserve(clean.size() + clean.size() / 8);
  for (char c : clean) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string attr_escape(std::string_view s) {
  const std::string escaped = text_escape(s);
  std::string out;
  out.reserve(escaped.size());
  for (char c : escaped) {
    switch (c) {
      case '\t':
        out += "&#9;";
        break;
      case '\n':
        out += "&#10;";
        break;
      case '\r':
        out += "&#13;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string id_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    const auto b = static_cast<unsigned char>(c);
    const bool plain =
        (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') || (b >= '0' && b <= '9') || b == '-';
    if (plain) {
      out += c;
    } else {
      char buf[4];
      std::snprintf(buf, sizeof buf, "_%02X", b);
      out += buf;
    }
  }
  return out;
}

std::string md_escape(std::string_view s) {
  const std::string clean = sanitize_text(s);
  std::string out;
  out.reserve(clean.size() + clean.size() / 4);
  for (char c : clean) {
    const auto b = static_cast<unsigned char>(c);
    if (c == '\n' || c == '\r' || c == '\t') {
      out += ' ';
    } else if (b < 0x80 && std::string_view("\\`*_[]<>#!|~&").find(c) != std::string_view::npos) {
      out += '\\';
      out += c;
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace mr::report
