-- lock_claim: take a reentrant lock for an owner that holds none of it, as far as its caller knows;
-- when it is taken, optionally put the owner's client in line for it (see lock_release).
--
-- KEYS[1]  the lock: a hash of <clientId>:<threadId> -> hold count
-- KEYS[2]  (optional) the line of waiting clients, padlock_queue:{<name>}: a list of client ids
-- KEYS[3]  (optional) this client's place in line, padlock_waiter:{<name>}:<clientId>: a string
--          "<threadId>:<lease ms>:<nonce>" naming the owner a grant goes to, how long the
--          grant holds and what its message carries back; while it exists, the client id is in
--          KEYS[2]
-- ARGV[1]  lease in milliseconds (PEXPIRE)
-- ARGV[2]  owner field, <clientId>:<threadId>
-- ARGV[3]  (optional) "<threadId>:<lease ms>:<nonce>" to get in line when the lock is taken; empty:
--          do not
-- ARGV[4]  (with ARGV[3]) how long the place in line lasts unless refreshed, in milliseconds
-- ARGV[5]  (with ARGV[3]) this client's id
-- ARGV[6]  (optional) 1 when an earlier attempt of this acquisition got in line: a claim that
--          succeeds leaves the line
--
-- Returns  nil when acquired: the lock was free, or it already carried the owner's field (this
--          same claim, sent again after its reply was lost, a claim its caller gave up on, or a
--          grant by lock_release); either way the owner now holds it exactly once, so a claim
--          may be sent again safely. Otherwise the lock's PTTL in milliseconds (-1 when it has no
--          expiry), and with ARGV[3] the client is in line (at the tail when it was not).
-- Publishes nothing.
--
-- The format is Redisson's RLock format; a re-entry by a holder goes through lock_acquire. An
-- uncontended first hold is the three calls the format needs (EXISTS, HSET, PEXPIRE); its since
-- is noted later, by its client, once the hold has lasted (lock_since). SET ... GET needs Redis
-- 6.2.
if redis.call('exists', KEYS[1]) == 0 or redis.call('hexists', KEYS[1], ARGV[2]) == 1 then
    redis.call('hset', KEYS[1], ARGV[2], 1)
    redis.call('pexpire', KEYS[1], ARGV[1])
    if ARGV[6] == '1' then
        redis.call('del', KEYS[3])
        redis.call('lrem', KEYS[2], 0, ARGV[5])
    end
    return nil
end
local ttl = redis.call('pttl', KEYS[1])
if ARGV[3] ~= nil and ARGV[3] ~= '' then
    if not redis.call('set', KEYS[3], ARGV[3], 'px', ARGV[4], 'get') then
        redis.call('rpush', KEYS[2], ARGV[5])
    end
    redis.call('pexpire', KEYS[2], ARGV[4])
end
return ttl
