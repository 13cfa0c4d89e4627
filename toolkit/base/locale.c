/* The switch to a UTF-8 LC_CTYPE for libarchive's names, written once. */
#include "locale.h"

#include <pthread.h>

static pthread_once_t utf8_once = PTHREAD_ONCE_INIT;
static locale_t utf8; /* (locale_t)0 where there is no C.UTF-8 */

static void utf8_make(void)
{
	utf8 = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
}

locale_t tf_locale_utf8_enter(void)
{
	pthread_once(&utf8_once, utf8_make);
	return utf8 ? uselocale(utf8) : (locale_t)0;
}

void tf_locale_restore(locale_t old)
{
	if (old)
		uselocale(old);
}
