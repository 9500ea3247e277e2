package dev.padlock.testing;

/** Closing several resources and keeping every failure: the first thrown, the rest suppressed. */
public final class Cleanup {

    private Cleanup() {
    }

    /**
     * Closes {@code resource}; returns {@code failure} with this close's failure added (as the
     * failure itself when there was none yet, else as a suppressed one).
     */
    public static RuntimeException close(AutoCloseable resource, RuntimeException failure) {
        try {
            resource.close();
            return failure;
        } catch (Exception e) {
            RuntimeException thrown = e instanceof RuntimeException
                    ? (RuntimeException) e
                    : new IllegalStateException("Cannot close " + resource, e);
            if (failure == null) {
                return thrown;
            }
            failure.addSuppressed(thrown);
            return failure;
        }
    }

    /** Throws {@code failure} when there is one. */
    public static void rethrow(RuntimeException failure) {
        if (failure != null) {
            throw failure;
        }
    }
}
