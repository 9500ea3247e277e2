package dev.padlock.internal.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.StringLength;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The codec's size estimate is exact, and what it writes is what {@link String#getBytes} gives
 * for UTF-8, so a key is the same key whichever client wrote it.
 */
class Utf8CodecTest {
    private final Utf8Codec codec = Utf8Codec.INSTANCE;

    @ParameterizedTest
    @ValueSource(strings = {"", "orders:1", "\u00e9t\u00e9", "\u65e5\u672c", "\ud83d\udd12", "lone \ud800 high",
            "lone \udc00 low", "ends high \ud800"})
    void writesTheBytesOfStringGetBytesInExactlyTheEstimatedSize(String text) {
        assertWritesUtf8(text);
    }

    @Property(tries = 500, seed = "20261128")
    void anyStringIsWrittenAsItsUtf8Bytes(@ForAll @StringLength(max = 40) String text) {
        assertWritesUtf8(text);
    }

    @Property(tries = 200, seed = "20261128")
    void decodingGivesBackWhatWasWritten(@ForAll @StringLength(max = 40) String text) {
        String wellFormed = new String(text.getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8);
        ByteBuf buffer = Unpooled.buffer();
        codec.encodeValue(wellFormed, buffer);
        assertThat(codec.decodeValue(buffer.nioBuffer())).isEqualTo(wellFormed);
    }

    private void assertWritesUtf8(String text) {
        byte[] expected = text.getBytes(StandardCharsets.UTF_8);
        ByteBuf key = Unpooled.buffer();
        ByteBuf value = Unpooled.buffer();
        codec.encodeKey(text, key);
        codec.encodeValue(text, value);
        assertThat(codec.isEstimateExact()).isTrue();
        assertThat(codec.estimateSize(text)).isEqualTo(expected.length);
        assertThat(ByteBufUtil.getBytes(key)).isEqualTo(expected);
        assertThat(ByteBufUtil.getBytes(value)).isEqualTo(expected);
        assertThat(codec.encodeKey(text).remaining()).isEqualTo(expected.length);
    }
}
