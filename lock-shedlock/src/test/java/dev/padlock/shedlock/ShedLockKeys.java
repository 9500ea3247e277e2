package dev.padlock.shedlock;

/** The job names ShedLock's abstract suites use: fixed ones, and each test instance's own. */
final class ShedLockKeys {
    private static final String[] NAMES = {"name", "name2", "lock1", "lock2"};

    private ShedLockKeys() {
    }

    static String[] of(String prefix, String instanceName) {
        String[] keys = new String[NAMES.length + 1];
        for (int i = 0; i < NAMES.length; i++) {
            keys[i] = prefix + NAMES[i];
        }
        keys[NAMES.length] = prefix + instanceName;
        return keys;
    }
}
