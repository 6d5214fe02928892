/*
 * Just enough of std::vector for the Enzyme tests that pass one by
 * reference (rosenbrock.cpp, vec.cpp): libstdc++'s layout (begin, end and
 * capacity pointers), storage from ::operator new, and construction from a
 * braced list or a size.  No C++ library headers, so the corpus builds
 * wherever clang does; std::initializer_list is the one name clang needs
 * to find in namespace std for a braced list.
 */
#ifndef TANJIT_TESTS_ENZYME_MINI_VECTOR_H
#define TANJIT_TESTS_ENZYME_MINI_VECTOR_H

typedef __SIZE_TYPE__ size_t;

void *operator new(size_t);
void operator delete(void *, size_t) noexcept;

namespace std {
template <class E> class initializer_list {
  const E *first_;
  size_t size_;
  constexpr initializer_list(const E *b, size_t n) : first_(b), size_(n) {}

public:
  constexpr initializer_list() noexcept : first_(nullptr), size_(0) {}
  constexpr size_t size() const noexcept { return size_; }
  constexpr const E *begin() const noexcept { return first_; }
  constexpr const E *end() const noexcept { return first_ + size_; }
};
} // namespace std

namespace mini {
template <typename T> class vector {
  T *begin_, *end_, *cap_;

  void allocate(size_t n) {
    begin_ = static_cast<T *>(::operator new(n * sizeof(T)));
    end_ = cap_ = begin_ + n;
  }

public:
  explicit vector(size_t n) {
    allocate(n);
    for (size_t i = 0; i < n; i++)
      begin_[i] = T(0);
  }
  vector(std::initializer_list<T> values) {
    allocate(values.size());
    for (size_t i = 0; i < values.size(); i++)
      begin_[i] = values.begin()[i];
  }
  vector(const vector &) = delete;
  vector &operator=(const vector &) = delete;
  ~vector() {
    ::operator delete(begin_, (size_t)(cap_ - begin_) * sizeof(T));
  }

  size_t size() const { return (size_t)(end_ - begin_); }
  T &operator[](size_t i) { return begin_[i]; }
  const T &operator[](size_t i) const { return begin_[i]; }
  T *data() { return begin_; }
};
} // namespace mini

#endif
