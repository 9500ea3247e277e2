/**
 * The side-by-side benchmark of Padlock and Redisson: {@link dev.padlock.bench.Bench} runs each
 * {@link dev.padlock.bench.Scenario} once for every {@link dev.padlock.bench.LockLibrary} on one
 * Redis server, or on a Redis Cluster ({@code --topology cluster}), and prints one table. Not API.
 */
package dev.padlock.bench;
