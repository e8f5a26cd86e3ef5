//! Entry point of the planner page: installs the panic hook and mounts the app on `<body>`.

fn main() {
    gpu_share_web::start();
}
