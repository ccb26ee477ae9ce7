// File: checker_table.h
//
// Every passive checker, by name, with the clauses it judges (the table docs/analyze.md
// describes). The analyzer instantiates each entry once per capture.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

#include "harness/analyze/checker.h"
#include "reference/wire/opcode.h"

namespace mr::analyze {

// Which packets a checker judges by their BTH TVer. Every checker judges Part I (TVer 0,
// and any TVer but 1, which a base decoder reads as Part I); an Ext packet (TVer 1) is
// judged only by the rules that hold in every header version (MR-WF-02 says a base QP
// sends none, MR-IC-01/MR-EX-08 that its ICRC holds, MR-WF-08 its port) and by the Ext
// checkers, which judge Ext packets only.
enum class HeaderScope : uint8_t { kBase, kEveryVersion, kExt };

struct CheckerEntry {
  std::string_view name;
  std::string_view clauses;
  std::unique_ptr<Checker> (*make)();
  // The packets it can report on, judged from their opcode's table entry alone (nullptr:
  // an opcode outside the table); the analyzer calls it for no others. Each is what the
  // checker's own first test implies, so the filter changes no verdict, only the calls made.
  bool (*runs_on)(const wire::OpcodeInfo* info) = nullptr;
  HeaderScope scope = HeaderScope::kBase;
};

std::span<const CheckerEntry> checker_table();

}  // namespace mr::analyze
