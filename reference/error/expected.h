// File: expected.h
//
// `mr::Expected<T, E>`: errors as values at trust boundaries.
//
// g++ 12 ships std::expected (C++23); clang 14, which builds the fuzzers and runs
// clang-tidy, cannot compile libstdc++'s <expected>. So this header names std::expected
// where the library has it and otherwise provides the subset of its interface the project
// uses, with the same spelling, so that code reads as standard C++23.
#pragma once

#include <version>

#if defined(__cpp_lib_expected)
#include <expected>

namespace mr {
template <class T, class E>
using Expected = std::expected<T, E>;
template <class E>
using Unexpected = std::unexpected<E>;
}  // namespace mr

#else
#include <type_traits>
#include <utility>
#include <variant>

namespace mr {

template <class E>
class Unexpected {
 public:
  constexpr explicit Unexpected(E e) : error_(std::move(e)) {}
  constexpr const E& error() const& { return error_; }
  constexpr E& error() & { return error_; }
  constexpr E&& error() && { return std::move(error_); }

 private:
  E error_;
};

template <class E>
Unexpected(E) -> Unexpected<E>;

template <class T, class E>
class [[nodiscard]] Expected {
 public:
  constexpr Expected() requires std::is_default_constructible_v<T> : v_(std::in_place_index<0>) {}
  template <class U = T>
  requires std::is_constructible_v<T, U&&> &&
      (!std::is_same_v<std::remove_cvref_t<U>, Expected>)constexpr Expected(U&& v)
      : v_(std::in_place_index<0>, std::forward<U>(v)) {}
  template <class G>
  constexpr Expected(Unexpected<G> u) : v_(std::in_place_index<1>, std::move(u).error()) {}

  constexpr bool has_value() const { return v_.index() == 0; }
  constexpr explicit operator bool() const { return has_value(); }
  constexpr T& value() & { return std::get<0>(v_); }
  constexpr const T& value() const& { return std::get<0>(v_); }
  constexpr T&& value() && { return std::get<0>(std::move(v_)); }
  constexpr T& operator*() & { return value(); }
  constexpr const T& operator*() const& { return value(); }
  constexpr T&& operator*() && { return std::move(*this).value(); }
  constexpr T* operator->() { return &value(); }
  constexpr const T* operator->() const { return &value(); }
  constexpr E& error() & { return std::get<1>(v_); }
  constexpr const E& error() const& { return std::get<1>(v_); }
  constexpr E&& error() && { return std::get<1>(std::move(v_)); }
  template <class U>
  constexpr T value_or(U&& d) const& {
    return has_value() ? value() : static_cast<T>(std::forward<U>(d));
  }
  // As std::expected: equal when both hold equal values or both hold equal errors.
  friend constexpr bool operator==(const Expected& a, const Expected& b) {
    if (a.has_value() != b.has_value()) return false;
    return a.has_value() ? a.value() == b.value() : a.error() == b.error();
  }

 private:
  std::variant<T, E> v_;
};

template <class E>
class [[nodiscard]] Expected<void, E> {
 public:
  constexpr Expected() = default;
  template <class G>
  constexpr Expected(Unexpected<G> u) : error_(std::move(u).error()), ok_(false) {}
  constexpr bool has_value() const { return ok_; }
  constexpr explicit operator bool() const { return ok_; }
  constexpr void value() const {}
  constexpr const E& error() const& { return error_; }
  constexpr E& error() & { return error_; }
  friend constexpr bool operator==(const Expected& a, const Expected& b) {
    return a.ok_ == b.ok_ && (a.ok_ || a.error_ == b.error_);
  }

 private:
  E error_{};
  bool ok_ = true;
};

}  // namespace mr
#endif
