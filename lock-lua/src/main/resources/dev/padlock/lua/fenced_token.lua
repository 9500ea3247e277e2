-- fenced_token: the fencing token of a fenced lock's current holder.
--
-- KEYS[1]  the lock hash
-- KEYS[2]  the token counter, redisson_lock_token:{<name>}
-- ARGV     none
--
-- Returns  the counter's value while the lock is held (the holder's token when the holder took it
--          as a fenced lock; a holder granted the lock by a plain release took no token and gets the
--          last one handed out), 0 when held and no counter exists, nil when the lock is free.
if redis.call('exists', KEYS[1]) == 1 then
    return tonumber(redis.call('get', KEYS[2])) or 0
end
return nil
