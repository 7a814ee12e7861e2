package chunkrelay.envelope;

import io.micronaut.context.annotation.EachProperty;
import io.micronaut.context.annotation.Parameter;
import io.micronaut.core.bind.annotation.Bindable;

import java.util.List;

/**
 * One project the relay accepts, from {@code relay.projects.<id>.keys}.
 *
 * @param id   the numeric project id (the property name)
 * @param keys the public keys (32 characters) that may send to it
 */
@EachProperty("relay.projects")
public record ProjectConfig(@Parameter String id, @Bindable(defaultValue = "") List<String> keys) {
}
