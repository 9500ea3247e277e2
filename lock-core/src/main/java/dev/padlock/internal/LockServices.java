package dev.padlock.internal;

/**
 * What every lock object of one client shares: who the client is, its connections, its wake-up
 * and renewal machinery, and its local queues.
 */
record LockServices(
        String clientId,
        RedisBackend backend,
        ScriptRunner scripts,
        WakeUpRegistry wakeUps,
        Watchdog watchdog,
        LocalQueues queues,
        long commandTimeoutMillis) {

    String address() {
        return backend.address();
    }
}
