import { App } from 'aws-cdk-lib';
import { createServiceApp } from './service-app.js';

createServiceApp(new App());
