package dev.padlock.internal.renewal;

/** One owner ({@code <clientId>:<threadId>}) of one lock ({@code LockProtocol.localKey()}). */
record Owner(String localKey, long owner) {
}
