"""Strings of the server's queue for heavy work (ui/work_queue.py): live timings and trainings wait their turn."""

STRINGS = {
    "queue.waiting": {
        "zh": "正在排队：你是第 {place} 位（{running} 个在运行，共 {waiting} 个在等待）。"
        "为了让每个人的页面都保持流畅，服务器同时只运行 {workers} 个耗时任务。",
        "en": "Waiting in the queue: you are number {place} ({running} running, {waiting} waiting). "
        "The server runs {workers} heavy job(s) at a time so that everyone's pages stay quick.",
    },
    "queue.running": {"zh": "正在运行……", "en": "Running…"},
    "queue.shared": {
        "zh": "另有 {n} 位同学请求了同样的任务：你们共用这一次运行。",
        "en": "{n} other student(s) asked for the same job: you share this one run.",
    },
    "queue.cancel": {"zh": "取消", "en": "Cancel"},
    "queue.cancelled": {"zh": "已取消。", "en": "Cancelled."},
    "queue.full": {
        "zh": "服务器的耗时任务队列已满（{n} 个在等待）。请过一分钟再试。",
        "en": "The server's queue for heavy work is full ({n} waiting). Please try again in a minute.",
    },
    "queue.failed": {"zh": "任务失败（{error}）。请再试一次。", "en": "The job failed ({error}). Please try again."},
    "queue.load.busy": {
        "zh": "测量时，服务器上另有 {others} 个耗时任务同时运行、{waiting} 个在排队，机器的平均负载为 {load}"
        "（{cores} 个核心）。与其他工作同时测得的时间比空闲时噪声更大：队列空时再测一次，可以对比。",
        "en": "Measured while {others} other heavy job(s) ran beside it and {waiting} waited; the machine's load "
        "average was {load} on {cores} core(s). Times measured beside other work are noisier than on an idle "
        "machine: measure again when the queue is empty to compare.",
    },
    "queue.load.quiet": {
        "zh": "测量时没有其他耗时任务在运行；机器的平均负载为 {load}（{cores} 个核心）。"
        "同学们翻页的计算和其他程序仍在共用这台机器，所以时间仍有噪声。",
        "en": "Measured with no other heavy job running; the machine's load average was {load} on {cores} core(s). "
        "The class's page steps and other programs still share the machine, so the times are still noisy.",
    },
}
