# SPDX-License-Identifier: GPL-2.0-only
# AX_CHECK_COMPILE_FLAG(FLAG, [ACTION-IF-OK], [ACTION-IF-NOT], [EXTRA-FLAGS])
# Compile an empty program with FLAG (plus EXTRA-FLAGS, e.g. -Werror so that
# clang's "unknown warning option" counts as failure) and run ACTION-IF-OK
# or ACTION-IF-NOT.  The answer is cached per flag and language.
AC_DEFUN([AX_CHECK_COMPILE_FLAG],
[AS_VAR_PUSHDEF([ax_cache], [ax_cv_cflag_[]_AC_LANG_ABBREV[]_$4_$1])dnl
AC_CACHE_CHECK([whether _AC_LANG compiler accepts $1], [ax_cache], [
  ax_save_flags=$[]_AC_LANG_PREFIX[]FLAGS
  _AC_LANG_PREFIX[]FLAGS="$[]_AC_LANG_PREFIX[]FLAGS $4 $1"
  AC_COMPILE_IFELSE([AC_LANG_PROGRAM()],
    [AS_VAR_SET([ax_cache], [yes])],
    [AS_VAR_SET([ax_cache], [no])])
  _AC_LANG_PREFIX[]FLAGS=$ax_save_flags])
AS_VAR_IF([ax_cache], [yes], [m4_default([$2], [:])], [m4_default([$3], [:])])
AS_VAR_POPDEF([ax_cache])dnl
])
