package dev.padlock.internal;

/**
 * What every lock object of one client shares: who the client is, its connections, and its
 * wake-up and renewal machinery.
 */
record LockServices(
        String clientId,
        RedisBackend backend,
        ScriptRunner scripts,
        WakeUpRegistry wakeUps,
        Watchdog watchdog,
        long commandTimeoutMillis) {

    String address() {
        return backend.address();
    }
}
