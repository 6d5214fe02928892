/*
 * A stand-in for Enzyme's C++ header (<enzyme/enzyme>), which is not
 * installed here: the same user-facing names (enzyme::autodiff,
 * enzyme::Forward, Duplicated, DuplicatedNoNeed, Const) lowered to the same
 * __enzyme_fwddiff call the real header emits:
 *
 *   __enzyme_fwddiff<R>((void *)f, &<result activity>, &<primal wanted?>,
 *                       <marker>, value[, shadow], ...)
 *
 * with the result activity &enzyme_dup_return or &enzyme_const_return, the
 * second flag &enzyme_primal_return or &enzyme_noret, and the argument
 * markers passed by value.  Every step is always_inline so that, as with
 * the real header, -O0 IR holds the flat call once the inliner has run.
 * Forward mode only; R is a struct of the primal and/or the tangent.
 */
#ifndef TANJIT_TESTS_ENZYME_SUGAR_HPP
#define TANJIT_TESTS_ENZYME_SUGAR_HPP

extern int enzyme_dup, enzyme_dupnoneed, enzyme_const;
extern int enzyme_dup_return, enzyme_const_return, enzyme_primal_return,
    enzyme_noret;

template <typename R, typename... T> R __enzyme_fwddiff(T...);

#define ENZYME_SUGAR_INLINE __attribute__((always_inline))

namespace enzyme {

struct ForwardMode {};
using Forward = ForwardMode;

template <typename T> struct Duplicated {
  T value, shadow;
  Duplicated(T v, T s) : value(v), shadow(s) {}
};
template <typename T> struct DuplicatedNoNeed {
  T value, shadow;
  DuplicatedNoNeed(T v, T s) : value(v), shadow(s) {}
};
template <typename T> struct Const {
  T value;
  Const(T v) : value(v) {}
};

/* What a request returns: {primal, tangent}, or one of them. */
template <typename T> struct both { T primal, tangent; };
template <typename T> struct one { T value; };

namespace detail {
template <typename T> struct result_of;
template <typename T> struct result_of<Duplicated<T>> {
  using type = both<T>;
  static constexpr int *activity = &enzyme_dup_return;
  static constexpr int *primal = &enzyme_primal_return;
};
template <typename T> struct result_of<DuplicatedNoNeed<T>> {
  using type = one<T>;
  static constexpr int *activity = &enzyme_dup_return;
  static constexpr int *primal = &enzyme_noret;
};
template <typename T> struct result_of<Const<T>> {
  using type = one<T>;
  static constexpr int *activity = &enzyme_const_return;
  static constexpr int *primal = &enzyme_primal_return;
};

/* Continuation-passing expansion: each argument becomes its marker, its
 * value and (duplicated) its shadow, in order, without a tuple in memory. */
template <typename K> ENZYME_SUGAR_INLINE auto expand(K k) { return k(); }
template <typename K, typename T, typename... Rest>
ENZYME_SUGAR_INLINE auto expand(K k, Duplicated<T> a, Rest... rest) {
  return expand([=](auto... xs) ENZYME_SUGAR_INLINE {
    return k(enzyme_dup, a.value, a.shadow, xs...); }, rest...);
}
template <typename K, typename T, typename... Rest>
ENZYME_SUGAR_INLINE auto expand(K k, DuplicatedNoNeed<T> a, Rest... rest) {
  return expand([=](auto... xs) ENZYME_SUGAR_INLINE {
    return k(enzyme_dupnoneed, a.value, a.shadow, xs...); }, rest...);
}
template <typename K, typename T, typename... Rest>
ENZYME_SUGAR_INLINE auto expand(K k, Const<T> a, Rest... rest) {
  return expand([=](auto... xs) ENZYME_SUGAR_INLINE {
    return k(enzyme_const, a.value, xs...); }, rest...);
}
} // namespace detail

/* autodiff<Forward, RetActivity>(f, args...) */
template <typename Mode, typename RetActivity, typename R, typename... P,
          typename... A>
ENZYME_SUGAR_INLINE typename detail::result_of<RetActivity>::type
autodiff(R (*f)(P...), A... args) {
  using info = detail::result_of<RetActivity>;
  using result = typename info::type;
  return detail::expand([=](auto... xs) ENZYME_SUGAR_INLINE {
    return __enzyme_fwddiff<result>((void *)f, info::activity,
                                    info::primal, xs...); }, args...);
}

/* autodiff<Forward>(f, args...): a float result is DuplicatedNoNeed, its
 * tangent alone */
template <typename Mode, typename R, typename... P, typename... A>
ENZYME_SUGAR_INLINE one<R> autodiff(R (*f)(P...), A... args) {
  return autodiff<Mode, DuplicatedNoNeed<R>>(f, args...);
}

} // namespace enzyme

#endif
