// File: checker_table.h
//
// Every passive checker, by name, with the clauses it judges (the table docs/analyze.md
// describes). The analyzer instantiates each entry once per capture.
#pragma once

#include <memory>
#include <span>
#include <string_view>

#include "harness/analyze/checker.h"

namespace mr::analyze {

struct CheckerEntry {
  std::string_view name;
  std::string_view clauses;
  std::unique_ptr<Checker> (*make)();
  // The packets it can report on: opcodes with one of these OpcodeFlags, or every packet
  // (0, including opcodes outside the table). The analyzer calls it for no others.
  uint32_t packets = 0;
};

std::span<const CheckerEntry> checker_table();

}  // namespace mr::analyze
