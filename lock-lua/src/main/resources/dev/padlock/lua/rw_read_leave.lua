--!df flags=allow-undeclared-keys
-- rw_read_leave: take a reader that gave up out of the readers' hall; when a grant reached it
-- meanwhile, it keeps that instead, with its own lease.
--
-- KEYS[1]  the lock hash (see rw_read_acquire)
-- KEYS[2]  the readers' hall, padlock_rw_readers:{<name>} (see rw_read_acquire)
-- KEYS[3]  this reader's lease prefix, {<name>}:<clientId>:<threadId>:rwlock_timeout
-- ARGV[1]  reader field, <clientId>:<threadId>
-- ARGV[2]  the reader's place, "<lease ms>:<nonce>"
-- ARGV[3]  the reader's lease in milliseconds
--
-- Keys not in KEYS: this reader's hold key, KEYS[3] followed by :n, n its count in the hash,
--          which only this script reads (Redisson's format keeps one key a hold).
--          A strict server refuses keys not in KEYS unless told: the first line tells Dragonfly
--          (see docs/operating/where-it-runs.md).
-- Returns  2 when the reader was out of the hall and its field is in the lock in read mode: a
--          grant that came as it gave up (it held nothing when it took its place), which it now
--          holds once with lease ARGV[3];
--          1 when its place was in the hall (it is removed), 0 otherwise.
-- Publishes nothing.
if redis.call('hget', KEYS[2], ARGV[1]) == ARGV[2] then
    redis.call('hdel', KEYS[2], ARGV[1])
    return 1
end
if redis.call('hget', KEYS[1], 'mode') ~= 'read' then
    return 0
end
local hold = redis.call('hget', KEYS[1], ARGV[1])
if not hold then
    return 0
end
if redis.call('pexpire', KEYS[3] .. ':' .. hold, ARGV[3]) == 0 then
    redis.call('set', KEYS[3] .. ':' .. hold, 1, 'px', ARGV[3]) -- its lease key lapsed, the field is there
end
if not pcall(redis.call, 'pexpire', KEYS[1], ARGV[3], 'gt') then
    redis.call('pexpire', KEYS[1], math.max(redis.call('pttl', KEYS[1]), tonumber(ARGV[3])))
end
return 2
