package io.github.dubboroute.it;

import java.lang.reflect.Field;
import java.util.concurrent.ThreadLocalRandom;
import sun.misc.Unsafe;

/**
 * Drives {@link ThreadLocalRandom} deterministically so that Dubbo's own
 * {@code DestinationSet.randDestination()} (the v3.1 weighted pick, which calls
 * {@code ThreadLocalRandom.current().nextLong(weightSum)}) can be made to draw any chosen value r.
 *
 * <p>How: ThreadLocalRandom keeps its state in the field {@code Thread.threadLocalRandomSeed}; each
 * {@code nextLong()} adds a per-thread constant to it (GAMMA in OpenJDK 17 GA; Debian's 17.0.15 adds
 * {@code (threadId << 1) + GAMMA}, so the increment is measured, not assumed) and returns {@code mix64(seed)}
 * (Murmur3's fmix64). {@code mix64} is a bijection, so for a wanted output x we set the seed to
 * {@code unmix64(x) - increment}. {@code nextLong(bound)}
 * (JDK 17 RandomSupport.boundedNextLong) maps one nextLong() output x to r = {@code x & (bound-1)} for a
 * power-of-two bound and to r = {@code (x >>> 1) % bound} otherwise (no rejection when x>>>1 &lt; bound).
 * So x = r (power of two) or x = 2r (otherwise) yields exactly r. {@link #selfTest()} checks this on the
 * running JVM; the oracle refuses the "destinations" mode if it fails.
 */
final class RandomControl {
    private static final Unsafe U;
    private static final long SEED;

    static {
        try {
            Field f = Unsafe.class.getDeclaredField("theUnsafe");
            f.setAccessible(true);
            U = (Unsafe) f.get(null);
            SEED = U.objectFieldOffset(Thread.class.getDeclaredField("threadLocalRandomSeed"));
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private RandomControl() {}

    private static long inverse(long a) { // multiplicative inverse of an odd a modulo 2^64 (Newton)
        long x = a;
        for (int i = 0; i < 6; i++) {
            x *= 2 - a * x;
        }
        return x;
    }

    private static final long M1_INV = inverse(0xff51afd7ed558ccdL);
    private static final long M2_INV = inverse(0xc4ceb9fe1a85ec53L);

    static long unmix64(long z) {
        z = z ^ (z >>> 33);
        z *= M2_INV;
        z = z ^ (z >>> 33);
        z *= M1_INV;
        return z ^ (z >>> 33);
    }

    /** Arrange for the next {@code ThreadLocalRandom.current().nextLong(bound)} on this thread to return r. */
    static void forceNextBounded(long r, long bound) {
        long x = (bound & (bound - 1)) == 0 ? r : (r << 1);
        U.putLong(Thread.currentThread(), SEED, unmix64(x) - INCREMENT.get());
    }

    /**
     * A seed z with {@code mix32(z) == x} (ThreadLocalRandom.mix32: z = (z ^ (z >>> 33)) * M1;
     * return (int) (((z ^ (z >>> 33)) * M2) >>> 32), mix64's constants): take the 64-bit product with high half x
     * and undo each step.
     */
    static long unmix32(int x) {
        long q = (((long) x) << 32) * M2_INV;
        long z = q ^ (q >>> 33);
        long w = z * M1_INV;
        return w ^ (w >>> 33);
    }

    /**
     * Arrange for the next {@code ThreadLocalRandom.current().nextInt(bound)} on this thread to return r
     * (JDK 17: Random.nextInt(bound) over next(31) = nextInt() >>> 1; for bound 2^k it is
     * {@code (bound * next(31)) >> 31}, else {@code next(31) % bound}; so x = r << (32 - k) or x = 2r).
     */
    static void forceNextInt(int r, int bound) {
        int x = (bound & (bound - 1)) == 0
                ? (bound == 1 ? 0 : r << (32 - Integer.numberOfTrailingZeros(bound)))
                : (r << 1);
        U.putLong(Thread.currentThread(), SEED, unmix32(x) - INCREMENT.get());
    }

    /** The amount ThreadLocalRandom adds to this thread's seed per draw, measured once per thread. */
    private static final ThreadLocal<Long> INCREMENT = ThreadLocal.withInitial(() -> {
        ThreadLocalRandom rnd = ThreadLocalRandom.current(); // initialise first: init would reset the seed
        Thread t = Thread.currentThread();
        long saved = U.getLong(t, SEED);
        U.putLong(t, SEED, 0L);
        rnd.nextLong();
        long inc = U.getLong(t, SEED);
        U.putLong(t, SEED, saved);
        return inc;
    });

    static void selfTestInt() {
        int[] bounds = {2, 3, 7, 10, 64, 1000, 1024, 1001, 2147483647, 200000};
        for (int bound : bounds) {
            for (int r : new int[] {0, 1, bound / 2, bound - 2, bound - 1}) {
                if (r < 0 || r >= bound) {
                    continue;
                }
                forceNextInt(r, bound);
                int got = ThreadLocalRandom.current().nextInt(bound);
                if (got != r) {
                    throw new IllegalStateException("ThreadLocalRandom nextInt control does not work on this JVM (bound "
                            + bound + ", wanted " + r + ", got " + got + ")");
                }
            }
        }
    }

    static void selfTest() {
        long[] bounds = {2, 3, 7, 10, 64, 1000, 1024, 1001, 2147483647L, 200000};
        for (long bound : bounds) {
            for (long r : new long[] {0, 1, bound / 2, bound - 2, bound - 1}) {
                if (r < 0 || r >= bound) {
                    continue;
                }
                forceNextBounded(r, bound);
                long got = ThreadLocalRandom.current().nextLong(bound);
                if (got != r) {
                    throw new IllegalStateException("ThreadLocalRandom control does not work on this JVM (bound "
                            + bound + ", wanted " + r + ", got " + got + ")");
                }
            }
        }
    }
}
