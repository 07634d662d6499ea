# The web app with the compiled core (mypyc), as a non-root user, with a health check.
# docs/deploy.md says how to run it (alone on SQLite, or several behind Caddy on
# PostgreSQL: compose.yaml).

# --- build: the compiled wheel needs a C compiler; the image that runs it does not.
FROM python:3.11-slim AS build
RUN apt-get update && apt-get install -y --no-install-recommends build-essential \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
RUN pip install --no-cache-dir build \
    && BOHNANZA_COMPILE=1 python -m build --wheel --outdir /wheels .

# --- run
FROM python:3.11-slim
RUN useradd --create-home --uid 10001 bohnanza
COPY --from=build /wheels /wheels
RUN pip install --no-cache-dir "$(ls /wheels/bohnanza-*.whl)[web]" && rm -rf /wheels
USER bohnanza
WORKDIR /home/bohnanza
ENV PYTHONUNBUFFERED=1
EXPOSE 8000
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
    CMD python -c "import urllib.request,sys; sys.exit(0 if urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=2).status == 200 else 1)"
# DATABASE_URL: sqlite:////home/bohnanza/games.db by default (a volume), or PostgreSQL.
ENV DATABASE_URL=sqlite:////home/bohnanza/data/games.db
CMD ["sh", "-c", "exec bohnanza serve --host 0.0.0.0 --port 8000 --trust-proxy --instance-url http://$(hostname):8000"]
