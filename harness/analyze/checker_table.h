// File: checker_table.h
//
// Every passive checker, by name, with the clauses it judges (the table docs/analyze.md
// describes). The analyzer instantiates each entry once per capture.
#pragma once

#include <memory>
#include <span>
#include <string_view>

#include "harness/analyze/checker.h"
#include "reference/wire/opcode.h"

namespace mr::analyze {

struct CheckerEntry {
  std::string_view name;
  std::string_view clauses;
  std::unique_ptr<Checker> (*make)();
  // The packets it can report on, judged from their opcode's table entry alone (nullptr:
  // an opcode outside the table); the analyzer calls it for no others. Each is what the
  // checker's own first test implies, so the filter changes no verdict, only the calls made.
  bool (*runs_on)(const wire::OpcodeInfo* info) = nullptr;
};

std::span<const CheckerEntry> checker_table();

}  // namespace mr::analyze
