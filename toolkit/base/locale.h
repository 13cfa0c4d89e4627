#ifndef TF_LOCALE_H
#define TF_LOCALE_H

/*
 * A UTF-8 character set for this thread while libarchive decodes member
 * names. libarchive converts names to the locale's charset, and in
 * tfbuild's C locale a UTF-8 name (zip's UTF-8 flag, pax) cannot be
 * converted: the member would have no name, or a warning. Only LC_CTYPE
 * changes (to C.UTF-8's), and only for the calling thread.
 */

#include <locale.h>

/*
 * Switch this thread's LC_CTYPE to C.UTF-8 (made once per process, kept
 * until exit). Returns the thread's locale before, for
 * tf_locale_restore(); where the system has no C.UTF-8, nothing changes
 * and it returns (locale_t)0.
 */
locale_t tf_locale_utf8_enter(void);
/* Return to old, what tf_locale_utf8_enter() returned. */
void tf_locale_restore(locale_t old);

#endif
