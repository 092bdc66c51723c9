import { Duration } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { Construct } from 'constructs';
import { type Catalog, jobModule, workerModule } from '#shared/catalog.ts';
import { CodeStack, type CodeStackProps } from './code-stack.ts';
import { constructId } from './names.ts';
import type { ServiceFunction } from './service-function.ts';

export interface WorkersStackProps extends CodeStackProps {
  readonly queues: Catalog['queues'];
  readonly schedules: Catalog['schedules'];
}

/** AWS advises a queue's visibility timeout of at least six times its consumer's timeout. */
const VISIBILITY_TIMEOUT_PER_CONSUMER_TIMEOUT = 6;

/** The work behind the API: one function per queue consumer and per schedule. */
export class WorkersStack extends CodeStack {
  /** By queue id. */
  readonly consumerFunctions = new Map<string, ServiceFunction>();
  /** By schedule id. */
  readonly jobFunctions = new Map<string, ServiceFunction>();

  constructor(scope: Construct, id: string, props: WorkersStackProps) {
    super(scope, id, props);
    this.addConsumers(props.queues);
    this.addSchedules(props.schedules);
  }

  private addConsumers(queues: Catalog['queues']): void {
    for (const queue of queues) {
      const fn = this.serviceFunction(`${queue.consumer}-worker`, {
        module: workerModule(queue.consumer),
        timeout: Duration.seconds(Math.floor(queue.visibilityTimeoutSeconds / VISIBILITY_TIMEOUT_PER_CONSUMER_TIMEOUT)),
        memoryMb: queue.memoryMb,
        sendsTo: queue.sendsTo,
        feedsItself: queue.sendsTo?.includes(queue.id),
        uses: queue.uses,
      });
      fn.addEventSource(new SqsEventSource(this.queue(queue.id), { batchSize: queue.batchSize, reportBatchItemFailures: true }));
      this.consumerFunctions.set(queue.id, fn);
    }
  }

  private addSchedules(schedules: Catalog['schedules']): void {
    for (const schedule of schedules) {
      const fn = this.serviceFunction(`${schedule.id}-job`, {
        module: jobModule(schedule.job),
        // A run is meant to end before the next one starts (and within Lambda's 15 minutes). EventBridge
        // may deliver a schedule twice and Lambda retries a run that failed or timed out, so one run at
        // a time is enforced too: two compactions of hours of one day would each write the day bucket
        // from the hours they read, and the later write could leave out the other's hour.
        timeout: Duration.minutes(Math.min(schedule.everyMinutes, 15)),
        reservedConcurrency: 1,
        sendsTo: schedule.sendsTo,
        uses: schedule.uses,
      });
      new events.Rule(this, `${constructId(schedule.id)}Schedule`, {
        schedule: events.Schedule.rate(Duration.minutes(schedule.everyMinutes)),
        targets: [new targets.LambdaFunction(fn)],
      });
      this.jobFunctions.set(schedule.id, fn);
    }
  }
}
