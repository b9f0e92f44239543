package io.falcon.fleetsim.gke;

/** Puts a pool's nodes into (and takes them out of) the cluster's simulated Kubernetes API. */
public interface NodeRegistrar {

    void addNodes(PoolNodes nodes);

    void removeNodes(String cluster, String pool);

    NodeRegistrar NONE = new NodeRegistrar() {
        @Override
        public void addNodes(PoolNodes nodes) {}

        @Override
        public void removeNodes(String cluster, String pool) {}
    };
}
