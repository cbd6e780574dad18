/*
 * A stand-in for bcryptprimitives.dll, for running ctxgit's Windows
 * binaries under Debian 12's Wine 8.0 only (scripts/wine.sh builds it into
 * a throwaway Wine prefix; it is never shipped and never built on Windows).
 *
 * Why: since Go 1.22 the Windows runtime draws its random numbers from
 * ProcessPrng in bcryptprimitives.dll, loaded from the system directory,
 * and stops before main ("bcryptprimitives.dll not found") where it is
 * missing. Wine added that DLL after 8.0. Wine 8.0 does have RtlGenRandom
 * (exported by advapi32 as SystemFunction036), which fills a buffer from
 * the system's random source, so ProcessPrng is that call here.
 *
 * Contract (learn.microsoft.com, "ProcessPrng"): BOOL ProcessPrng(PBYTE
 * pbData, SIZE_T cbData) fills cbData bytes and always returns TRUE.
 * RtlGenRandom takes a ULONG length, so a larger request goes in pieces.
 *
 * Build: x86_64-w64-mingw32-gcc -shared -O2 -o bcryptprimitives.dll \
 *        bcryptprimitives.c -ladvapi32
 */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T size)
{
	while (size > 0) {
		ULONG n = size > 0x40000000 ? 0x40000000 : (ULONG)size;
		if (!SystemFunction036(data, n))
			return FALSE;
		data += n;
		size -= n;
	}
	return TRUE;
}
