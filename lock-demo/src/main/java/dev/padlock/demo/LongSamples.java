package dev.padlock.demo;

import java.util.Arrays;

/** A growable array of longs, owned by one thread at a time. */
final class LongSamples {

    private long[] values = new long[1024];
    private int size;

    void add(long value) {
        if (size == values.length) {
            values = Arrays.copyOf(values, size * 2);
        }
        values[size++] = value;
    }

    void addAll(long[] more) {
        for (long value : more) {
            add(value);
        }
    }

    int size() {
        return size;
    }

    long[] toArray() {
        return Arrays.copyOf(values, size);
    }
}
