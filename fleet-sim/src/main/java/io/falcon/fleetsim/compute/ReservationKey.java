package io.falcon.fleetsim.compute;

/** Identifies a Compute Engine zonal reservation: {@code projects/{project}/zones/{zone}/reservations/{name}}. */
public record ReservationKey(String project, String zone, String name) {

    public String path() {
        return "projects/" + project + "/zones/" + zone + "/reservations/" + name;
    }
}
