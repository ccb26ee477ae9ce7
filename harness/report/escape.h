// File: escape.h
//
// Escaping for the report writers. Test data is hostile: packet summaries, file names and
// messages may hold markup, quotes, control characters or invalid UTF-8. Every string that
// reaches HTML, XML or Markdown goes through one of these.
//
//   out += "<td title=\"" + attr_escape(s) + "\">" + text_escape(s) + "</td>";
#pragma once

#include <string>
#include <string_view>

namespace mr::report {

// Valid UTF-8 holding only characters XML 1.0 and HTML allow as text: tab, line feed,
// carriage return and printable characters. Anything else is shown, not dropped: an
// invalid byte becomes the four characters \xNN, a control or non-character code point
// U+XXXX becomes \u{XXXX}.
std::string sanitize_text(std::string_view s);

// Element content for HTML and XML: sanitize_text, then & < > " ' as entities.
std::string text_escape(std::string_view s);

// An attribute value for HTML and XML: text_escape, and tab, line feed and carriage return
// as character references so that attribute normalization keeps them.
std::string attr_escape(std::string_view s);

// A fragment safe for an HTML id and a URL fragment: [A-Za-z0-9-] kept, every other byte
// (the underscore too) as _XX in hex. Distinct inputs give distinct outputs.
std::string id_escape(std::string_view s);

// Markdown inline text (CommonMark, GitHub) placed mid-line: sanitize_text, line breaks as
// spaces, and the punctuation that emphasis, code, links, tables, entities or inline HTML
// could act on (\ ` * _ [ ] < > # ! | ~ &) backslash-escaped.
std::string md_escape(std::string_view s);

}  // namespace mr::report
