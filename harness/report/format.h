// File: format.h
//
// Small text formatting shared by the writers: durations, times, JSON values as people read
// them. The results are plain text; the caller escapes them for its format.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <string_view>

#include "harness/spec/clause_catalog.h"

namespace mr::report {

// "0.012" (seconds, three decimals, never negative or NaN).
std::string format_seconds(double s);

// A test-relative time in milliseconds with microsecond precision: "12.345".
std::string format_time_ms(int64_t t_ns);

// A decoded field value: integers as "0x457 (1111)" (decimal alone below 10), strings
// unquoted, null as "", anything else as compact JSON.
std::string format_value(const nlohmann::ordered_json& v);

// Any JSON value as a line of prose, no JSON punctuation: strings as they are, arrays
// comma-separated, objects "key value, key value" without empty members ({"seed": "1",
// "filter": "", "mutants": ["a"]} -> "seed 1, mutants a").
std::string plain_text(const nlohmann::ordered_json& v);

// A clause's statement as a title that fits a line: the statement without its final period,
// or, when longer than `max_chars` bytes, cut at a word boundary and ended with "...".
std::string short_title(std::string_view statement, size_t max_chars = 50);

// The clauses a failure is against as one phrase for a failure message, each with its short
// title from the catalog where it has one: "clause MR-PS-05: A responder answers a
// duplicate...", "clauses MR-PS-04: ...; MR-PS-05: ..."; "" for none.
std::string clause_note(std::span<const std::string> ids, const spec::ClauseCatalog& catalog);

// Compact JSON that never throws: invalid UTF-8 becomes U+FFFD.
std::string safe_dump(const nlohmann::ordered_json& v, int indent = -1);

}  // namespace mr::report
