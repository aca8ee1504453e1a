package io.jrunc.vm.state;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import java.math.BigInteger;
import org.junit.jupiter.api.Test;

/** The commands' JSON is written without a mapper, byte for byte as a mapper with INDENT_OUTPUT writes it. */
class PrettyJsonTest {
    @Test
    void writesWhatTheIndentingMapperWrites() throws Exception {
        ObjectNode o = JsonNodeFactory.instance.objectNode().put("s", "a \"quoted\" \u00e9 \n line").put("i", 1).put("l", 1L << 40)
                .put("d", 0.5).put("f", 1.25f).put("t", true).put("b", false).putNull("n")
                .put("bi", new BigInteger("123456789012345678901234567890")).put("bd", new BigDecimal("1.10"));
        o.putArray("empty");
        o.putObject("emptyObject");
        o.putArray("a").add("x").add(2).addObject().put("k", "v").putArray("inner").add(true);
        o.putObject("nested").putObject("deeper").putArray("list").add(1).add(2);
        ObjectMapper mapper = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        assertEquals(mapper.writeValueAsString(o), PrettyJson.of(o));
        assertEquals(mapper.writeValueAsString(JsonNodeFactory.instance.arrayNode()), PrettyJson.of(JsonNodeFactory.instance.arrayNode()));
    }
}
